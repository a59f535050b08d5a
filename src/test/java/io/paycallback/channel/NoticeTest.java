package io.paycallback.channel;

import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;

class NoticeTest {

    /** The body a refund settled by a provider's answer is stored with; rows written before keep this layout too. */
    @Test
    void aSettledRefundIsDescribedInPlainValues() {
        Notice.Refund refund = new Notice.Refund("default", ChannelId.WXPAY, new RefundNo("R1"), "5000", new ChannelTradeNo("T1"),
                null, Notice.RefundResult.SUCCEEDED, new Money(new BigDecimal("1.00"), "CNY"), null);

        assertThat(refund.toString()).isEqualTo("Refund[merchantId=default, channel=WXPAY, refundNo=R1, channelRefundId=5000,"
                + " channelTradeNo=T1, outTradeNo=null, result=SUCCEEDED, amount=1.00, refundedTotal=null, currency=CNY]");
    }
}
