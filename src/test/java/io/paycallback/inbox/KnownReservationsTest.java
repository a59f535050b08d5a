package io.paycallback.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.paycallback.trade.ChannelId;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KnownReservationsTest {

    private final AtomicLong nanos = new AtomicLong();

    private static InboxConfig settings(int size, Duration ttl) {
        return new InboxConfig() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Duration ttl() {
                return ttl;
            }
        };
    }

    private KnownReservations known(int size, Duration ttl) {
        return known(size, ttl, new SimpleMeterRegistry().counter("answered"));
    }

    private KnownReservations known(int size, Duration ttl, Counter answered) {
        return new KnownReservations(settings(size, ttl), nanos::get, answered);
    }

    private static KnownReservations.Key payment(String merchant, ChannelId channel, String number) {
        return new KnownReservations.Key(CallbackTable.PAYMENT.leased(), merchant, channel, number);
    }

    @Test
    void aKeyIsKnownOnlyOnceRememberedAndOnlyWithItsWholeIdentity() {
        Counter answered = new SimpleMeterRegistry().counter("answered");
        KnownReservations known = known(100, Duration.ofMinutes(15), answered);
        assertThat(known.contains(payment("default", ChannelId.WXPAY, "4200001"))).isFalse();
        known.remember(payment("default", ChannelId.WXPAY, "4200001"));

        assertThat(known.contains(payment("default", ChannelId.WXPAY, "4200001"))).isTrue();
        assertThat(known.contains(payment("default", ChannelId.WXPAY, "4200002"))).isFalse();
        assertThat(known.contains(payment("other", ChannelId.WXPAY, "4200001"))).isFalse();
        assertThat(known.contains(payment("default", ChannelId.ALIPAY, "4200001"))).isFalse();
        assertThat(known.contains(new KnownReservations.Key(CallbackTable.REFUND.leased(), "default", ChannelId.WXPAY, "4200001")))
                .as("a refund number may equal a payment's: the two tables have their own keys").isFalse();
        assertThat(answered.count()).as("only answers from memory are counted").isEqualTo(1);
    }

    @Test
    void entriesExpireAfterTheirTtl() {
        KnownReservations known = known(100, Duration.ofMinutes(15));
        known.remember(payment("default", ChannelId.STRIPE, "pi_1"));

        nanos.addAndGet(Duration.ofMinutes(14).toNanos());
        assertThat(known.contains(payment("default", ChannelId.STRIPE, "pi_1"))).isTrue();
        nanos.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(known.contains(payment("default", ChannelId.STRIPE, "pi_1"))).isFalse();
    }

    @Test
    void theSizeBoundsWhatIsKept() {
        KnownReservations known = known(10, Duration.ofMinutes(15));
        for (int i = 0; i < 1000; i++) {
            known.remember(payment("default", ChannelId.STRIPE, "pi_" + i));
        }
        long kept = IntStream.range(0, 1000)
                .filter(i -> known.contains(payment("default", ChannelId.STRIPE, "pi_" + i))).count();
        assertThat(kept).isBetween(1L, 10L);
    }

    @Test
    void sizeZeroKeepsNothing() {
        KnownReservations known = known(0, Duration.ofMinutes(15));
        known.remember(payment("default", ChannelId.WXPAY, "4200001"));
        assertThat(known.contains(payment("default", ChannelId.WXPAY, "4200001"))).isFalse();
    }

    @Test
    void aNegativeSizeIsRefusedByName() {
        assertThatThrownBy(() -> known(-1, Duration.ofMinutes(15)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("known-reservations.size");
    }

    @Test
    void aTtlNearTheRetentionIsRefused() {
        assertThatThrownBy(() -> known(100, Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retention");
    }
}
