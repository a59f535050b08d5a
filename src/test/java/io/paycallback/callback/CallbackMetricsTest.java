package io.paycallback.callback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.paycallback.channel.CallbackKind;
import io.paycallback.trade.ChannelId;
import io.paycallback.trend.TrendRecorder;
import org.junit.jupiter.api.Test;

import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;

class CallbackMetricsTest {

    @Test
    void refusalTotalsSumEveryChannelAndKindAndNothingElse() {
        CallbackMetrics metrics = new CallbackMetrics(new SimpleMeterRegistry(), new TrendRecorder(null, Clock.systemUTC()));
        long start = System.nanoTime();
        metrics.record(ChannelId.WXPAY, CallbackKind.PAYMENT, CallbackDisposition.REJECTED_BUSY, start);
        metrics.record(ChannelId.STRIPE, CallbackKind.REFUND, CallbackDisposition.REJECTED_BUSY, start);
        metrics.record(ChannelId.ALIPAY, CallbackKind.PAYMENT, CallbackDisposition.STORE_FAILED, start);
        metrics.record(ChannelId.WXPAY, CallbackKind.PAYMENT, CallbackDisposition.NEW, start);

        assertThat(metrics.rejectedBusy()).isEqualTo(2);
        assertThat(metrics.storeFailed()).isEqualTo(1);
    }
}
