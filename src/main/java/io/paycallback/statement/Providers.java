package io.paycallback.statement;

import io.paycallback.trade.ChannelId;

import java.time.ZoneId;
import java.time.ZoneOffset;

/** The day a provider's bill covers is the provider's own: Beijing time for WeChat Pay and Alipay, UTC for Stripe. */
final class Providers {

    static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    private Providers() {
    }

    static ZoneId zone(ChannelId channel) {
        return channel == ChannelId.STRIPE ? ZoneOffset.UTC : SHANGHAI;
    }
}
