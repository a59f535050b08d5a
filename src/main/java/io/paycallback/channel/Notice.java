package io.paycallback.channel;

import java.math.BigDecimal;

/** A verified, parsed callback in provider-neutral terms. */
public sealed interface Notice {

    /** A payment the provider reports as paid; only paid states become a Payment. */
    record Payment(String merchantId, ChannelId channel, String channelTradeNo, String outTradeNo,
                   String tradeState, BigDecimal amount, String currency) implements Notice {
    }

    /**
     * A refund in a final state.
     *
     * @param refundNo        our refund number when the provider echoes it (out_refund_no, out_biz_no), else the provider's refund id
     * @param channelRefundId the provider's own refund id, when it sends one
     * @param channelTradeNo  the provider's number of the payment being refunded
     */
    record Refund(String merchantId, ChannelId channel, String refundNo, String channelRefundId,
                  String channelTradeNo, String outTradeNo, RefundResult result,
                  BigDecimal amount, String currency) implements Notice {
    }

    /** Signed and understood, but not something we act on (an unpaid state, an event type we do not use). */
    record Ignored(String reason) implements Notice {
    }

    enum RefundResult {
        SUCCEEDED,
        FAILED
    }
}
