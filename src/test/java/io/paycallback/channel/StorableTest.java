package io.paycallback.channel;

import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StorableTest {

    private static Notice.Payment payment(String tradeNo, String state, String amount) {
        return new Notice.Payment("default", ChannelId.STRIPE, new ChannelTradeNo(tradeNo), new OutTradeNo("ORDER-1"), state,
                new Money(new BigDecimal(amount), "USD"));
    }

    @Test
    void whatFitsTheColumnsPasses() throws Rejection {
        Notice.Payment largest = payment("\uD83D\uDCB0".repeat(64), "s".repeat(32), "9999999999999999.99");

        assertThat(Storable.checked(largest)).isSameAs(largest);
    }

    @Test
    void oneCharacterOrOneDigitMoreIsMalformed() {
        assertThatThrownBy(() -> Storable.checked(payment("x".repeat(65), "SUCCESS", "1.00"))).isInstanceOf(Rejection.Malformed.class);
        assertThatThrownBy(() -> Storable.checked(payment("pi_1", "s".repeat(33), "1.00"))).isInstanceOf(Rejection.Malformed.class);
        assertThatThrownBy(() -> Storable.checked(payment("pi_1", "SUCCESS", "10000000000000000.00"))).isInstanceOf(Rejection.Malformed.class);
        assertThatThrownBy(() -> Storable.checked(new Notice.Refund("default", ChannelId.WXPAY, new RefundNo("R1"), "r".repeat(65),
                new ChannelTradeNo("T1"), new OutTradeNo("O1"), Notice.RefundResult.SUCCEEDED, new Money(BigDecimal.ONE, "CNY"), null))).isInstanceOf(Rejection.Malformed.class);
    }
}
