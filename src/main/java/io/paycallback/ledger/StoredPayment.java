package io.paycallback.ledger;

import java.math.BigDecimal;

/** A reserved payment callback, as the order state machine sees it: provider-neutral, from our own table. */
public record StoredPayment(long id, String merchantId, String channel, String channelTradeNo, String outTradeNo,
                            BigDecimal amount, String currency) {
}
