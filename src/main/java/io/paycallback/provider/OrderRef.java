package io.paycallback.provider;

import io.paycallback.trade.OutTradeNo;

import java.util.Optional;

/**
 * The order a provider is asked about: our number, and the combine payment (WeChat Pay 合单) it is paid in when the
 * order service made one, for the providers that answer for such an order only by its combine.
 */
public record OrderRef(String merchantId, OutTradeNo outTradeNo, Optional<OutTradeNo> combineOutTradeNo) {

    public static OrderRef of(String merchantId, OutTradeNo outTradeNo) {
        return new OrderRef(merchantId, outTradeNo, Optional.empty());
    }
}
