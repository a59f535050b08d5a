package io.paycallback.order;

import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StalePaymentTest {

    private static Order order(OrderStatus status, String channel, String channelTradeNo) {
        return new Order("default", new OutTradeNo("ORD1"), new Money(new BigDecimal("88.00"), "CNY"), status, channel,
                ChannelTradeNo.ofNullable(channelTradeNo), status == OrderStatus.PENDING ? null : LocalDateTime.now(),
                new Money(BigDecimal.ZERO, "CNY"), status.name(), Optional.empty());
    }

    @Test
    void paidBySameTradeNumberIsADuplicate() {
        assertThat(StalePayment.of(order(OrderStatus.PAID, "wxpay", "T1"), "wxpay", new ChannelTradeNo("T1"))).isEqualTo(StalePayment.DUPLICATE);
    }

    @Test
    void paidByAnotherTradeNumberOrChannelIsPaidTwice() {
        assertThat(StalePayment.of(order(OrderStatus.PAID, "wxpay", "T1"), "wxpay", new ChannelTradeNo("T2"))).isEqualTo(StalePayment.PAID_TWICE);
        assertThat(StalePayment.of(order(OrderStatus.PAID, "wxpay", "T1"), "alipay", new ChannelTradeNo("T1"))).isEqualTo(StalePayment.PAID_TWICE);
        assertThat(StalePayment.PAID_TWICE.refunds()).isTrue();
    }

    @Test
    void anyPaymentOfAClosedOrderIsPaidAfterClose() {
        assertThat(StalePayment.of(order(OrderStatus.CLOSED, null, null), "stripe", new ChannelTradeNo("pi_1"))).isEqualTo(StalePayment.PAID_AFTER_CLOSE);
        assertThat(StalePayment.PAID_AFTER_CLOSE.refunds()).isTrue();
    }

    @Test
    void otherStatesAreNotSettledHere() {
        assertThat(StalePayment.of(order(OrderStatus.PENDING, null, null), "wxpay", new ChannelTradeNo("T1"))).isEqualTo(StalePayment.UNRESOLVED);
        assertThat(StalePayment.of(order(OrderStatus.REFUNDED, "wxpay", "T1"), "wxpay", new ChannelTradeNo("T2"))).isEqualTo(StalePayment.UNRESOLVED);
        assertThat(StalePayment.of(order(OrderStatus.REFUNDED, "wxpay", "T1"), "wxpay", new ChannelTradeNo("T1"))).isEqualTo(StalePayment.DUPLICATE);
        assertThat(StalePayment.UNRESOLVED.refunds()).isFalse();
        assertThat(StalePayment.DUPLICATE.refunds()).isFalse();
    }
}
