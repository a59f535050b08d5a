package io.paycallback.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The documented body of each event type, to the byte: receivers parse it, so its shape is a contract. */
class DownstreamEventPayloadTest {

    private static final Instant AT = Instant.parse("2026-12-03T10:15:30Z");
    private static final Subject.Payment PAYMENT = new Subject.Payment("m1", "wxpay", new OutTradeNo("ORD1"),
            new ChannelTradeNo("4200001"), new Money(new BigDecimal("100.00"), "CNY"));
    private static final Subject.Refund REFUND = new Subject.Refund("m1", "wxpay", new OutTradeNo("ORD1"),
            new ChannelTradeNo("4200001"), new RefundNo("R1"), new BigDecimal("30.00"), "CNY");

    @Test
    void orderPaidCarriesThePaymentAndNoRefundFields() {
        assertThat(payload(new DownstreamEvent.OrderPaid("pay:42", PAYMENT))).isEqualTo("""
                {"id":"pay:42:order.paid","type":"order.paid","merchantId":"m1","outTradeNo":"ORD1","channel":"wxpay",\
                "channelTradeNo":"4200001","refundNo":null,"amount":"100.00","refundAmount":null,"refundedTotal":null,\
                "currency":"CNY","reason":null,"occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    @Test
    void aRefundInFullOfAStalePaymentIsRequestedAndAlertedWithThePaymentsAmount() {
        Subject.Refund refund = PAYMENT.refundInFull(new RefundNo("RFP42"));
        assertThat(payload(new DownstreamEvent.RefundRequested("pay:42", refund, "paid_twice"))).isEqualTo("""
                {"id":"pay:42:refund.requested","type":"refund.requested","merchantId":"m1","outTradeNo":"ORD1",\
                "channel":"wxpay","channelTradeNo":"4200001","refundNo":"RFP42","amount":"100.00",\
                "refundAmount":"100.00","refundedTotal":null,"currency":"CNY","reason":"paid_twice",\
                "occurredAt":"2026-12-03T10:15:30Z"}""");
        assertThat(payload(new DownstreamEvent.Alert("pay:42", refund, "paid_twice"))).isEqualTo("""
                {"id":"pay:42:alert","type":"alert","merchantId":"m1","outTradeNo":"ORD1","channel":"wxpay",\
                "channelTradeNo":"4200001","refundNo":"RFP42","amount":"100.00","refundAmount":"100.00",\
                "refundedTotal":null,"currency":"CNY","reason":"paid_twice","occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    @Test
    void anAlertAboutAPaymentHasNoRefundFields() {
        assertThat(payload(new DownstreamEvent.Alert("pay:42", PAYMENT, "amount mismatch"))).isEqualTo("""
                {"id":"pay:42:alert","type":"alert","merchantId":"m1","outTradeNo":"ORD1","channel":"wxpay",\
                "channelTradeNo":"4200001","refundNo":null,"amount":"100.00","refundAmount":null,"refundedTotal":null,\
                "currency":"CNY","reason":"amount mismatch","occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    @Test
    void refundEventsCarryTheRefundsAmountTwice() {
        assertThat(payload(new DownstreamEvent.RefundSubmitted("submission:7", REFUND))).isEqualTo("""
                {"id":"submission:7:refund.submitted","type":"refund.submitted","merchantId":"m1","outTradeNo":"ORD1",\
                "channel":"wxpay","channelTradeNo":"4200001","refundNo":"R1","amount":"30.00","refundAmount":"30.00",\
                "refundedTotal":null,"currency":"CNY","reason":null,"occurredAt":"2026-12-03T10:15:30Z"}""");
        assertThat(payload(new DownstreamEvent.RefundFailed("refund:9", REFUND, "refund failed"))).isEqualTo("""
                {"id":"refund:9:refund.failed","type":"refund.failed","merchantId":"m1","outTradeNo":"ORD1",\
                "channel":"wxpay","channelTradeNo":"4200001","refundNo":"R1","amount":"30.00","refundAmount":"30.00",\
                "refundedTotal":null,"currency":"CNY","reason":"refund failed","occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    @Test
    void aSucceededRefundsAmountIsWhatItAddedToTheTotal() {
        assertThat(payload(new DownstreamEvent.RefundSucceeded("refund:9", REFUND, new BigDecimal("20.00"),
                new BigDecimal("50.00")))).isEqualTo("""
                {"id":"refund:9:refund.succeeded","type":"refund.succeeded","merchantId":"m1","outTradeNo":"ORD1",\
                "channel":"wxpay","channelTradeNo":"4200001","refundNo":"R1","amount":"20.00","refundAmount":"30.00",\
                "refundedTotal":"50.00","currency":"CNY","reason":null,"occurredAt":"2026-12-03T10:15:30Z"}""");
        Subject.Refund totalOnly = new Subject.Refund("m1", "stripe", new OutTradeNo("ORD2"), new ChannelTradeNo("pi_1"),
                new RefundNo("ch_1"), null, "USD");
        assertThat(payload(new DownstreamEvent.RefundSucceeded("refund:10", totalOnly, new BigDecimal("5.00"),
                new BigDecimal("5.00")))).isEqualTo("""
                {"id":"refund:10:refund.succeeded","type":"refund.succeeded","merchantId":"m1","outTradeNo":"ORD2",\
                "channel":"stripe","channelTradeNo":"pi_1","refundNo":"ch_1","amount":"5.00","refundAmount":null,\
                "refundedTotal":"5.00","currency":"USD","reason":null,"occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    @Test
    void anAlertAboutARefundGivenUpOnBeforeItsPaymentWasFoundLeavesTheTradeNumbersEmpty() {
        Subject.Refund unknown = new Subject.Refund("m1", "alipay", null, null, new RefundNo("R2"), new BigDecimal("5.00"),
                "CNY");
        assertThat(payload(new DownstreamEvent.Alert("refund:11", unknown, "dead letter: no payment"))).isEqualTo("""
                {"id":"refund:11:alert","type":"alert","merchantId":"m1","outTradeNo":null,"channel":"alipay",\
                "channelTradeNo":null,"refundNo":"R2","amount":"5.00","refundAmount":"5.00","refundedTotal":null,\
                "currency":"CNY","reason":"dead letter: no payment","occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    @Test
    void anAlertAboutATradeCarriesWhatItKnows() {
        assertThat(payload(new DownstreamEvent.Alert("query:3", Subject.Trade.order("m1", new OutTradeNo("ORD1")),
                "never paid"))).isEqualTo("""
                {"id":"query:3:alert","type":"alert","merchantId":"m1","outTradeNo":"ORD1","channel":null,\
                "channelTradeNo":null,"refundNo":null,"amount":null,"refundAmount":null,"refundedTotal":null,\
                "currency":null,"reason":"never paid","occurredAt":"2026-12-03T10:15:30Z"}""");
        assertThat(payload(new DownstreamEvent.Alert("statement:5", Subject.Trade.channel("m1", "stripe"),
                "given up"))).isEqualTo("""
                {"id":"statement:5:alert","type":"alert","merchantId":"m1","outTradeNo":null,"channel":"stripe",\
                "channelTradeNo":null,"refundNo":null,"amount":null,"refundAmount":null,"refundedTotal":null,\
                "currency":null,"reason":"given up","occurredAt":"2026-12-03T10:15:30Z"}""");
        assertThat(payload(new DownstreamEvent.Alert("submission:7", new Subject.Trade("m1", new OutTradeNo("ORD1"),
                "wxpay", new ChannelTradeNo("4200001"), new BigDecimal("30.00"), "CNY"), "not submitted"))).isEqualTo("""
                {"id":"submission:7:alert","type":"alert","merchantId":"m1","outTradeNo":"ORD1","channel":"wxpay",\
                "channelTradeNo":"4200001","refundNo":null,"amount":"30.00","refundAmount":null,"refundedTotal":null,\
                "currency":"CNY","reason":"not submitted","occurredAt":"2026-12-03T10:15:30Z"}""");
    }

    private static String payload(DownstreamEvent event) {
        try {
            return new ObjectMapper().writeValueAsString(Outbox.body(event, AT));
        } catch (JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }
}
