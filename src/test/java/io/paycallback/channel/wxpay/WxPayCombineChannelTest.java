package io.paycallback.channel.wxpay;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Notice;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.security.KeyPair;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.paycallback.channel.wxpay.WxPayFixture.API_V3_KEY;
import static io.paycallback.channel.wxpay.WxPayFixture.MCHID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * Combine payments (合单支付): one notice, up to 50 orders, each with its own state and {@code amount.total_amount}
 * (WxJava's {@code CombineNotifyResult}; a partner's sub-orders name their {@code sub_mchid}).
 */
class WxPayCombineChannelTest {

    private static final KeyPair PLATFORM = TestKeys.rsa();
    private static final String SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String SP_MCHID = WxPayFixture.SP_MCHID;
    private static final String PARTNER_KEY = WxPayFixture.PARTNER_KEY;

    private final WxPayChannel channel = WxPayFixture.withPartner(PLATFORM.getPublic(), SERIAL, NOW);

    static String subOrder(String mchid, String subMchid, int n, String tradeState, long totalFen) {
        return """
                {"mchid":"%s",%s"trade_type":"JSAPI","trade_state":"%s","bank_type":"OTHERS","attach":"",\
                "success_time":"2026-01-01T08:00:00+08:00","transaction_id":"420000000000000000000000000%d",\
                "out_trade_no":"ORDER-%d","amount":{"total_amount":%d,"currency":"CNY","payer_amount":%d,"payer_currency":"CNY"}}"""
                .formatted(mchid, subMchid == null ? "" : "\"sub_mchid\":\"" + subMchid + "\",", tradeState, n, n,
                        totalFen, totalFen);
    }

    static String combine(String combineMchid, List<String> subOrders) {
        return """
                {"combine_appid":"wxd678efh567hg6787","combine_mchid":"%s","combine_out_trade_no":"COMBINE-1",\
                "scene_info":{"device_id":"POS1:1"},"sub_orders":[%s],"combine_payer_info":{"openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}}"""
                .formatted(combineMchid, String.join(",", subOrders));
    }

    private ChannelVerdict read(String pathId, String plaintext, String apiV3Key) {
        String body = WxPayFixture.body("TRANSACTION.SUCCESS", WxPayFixture.encrypt(plaintext, apiV3Key));
        CallbackRequest signed = WxPayFixture.signed(CallbackKind.PAYMENT, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);
        return channel.read(new CallbackRequest(pathId, CallbackKind.PAYMENT, signed.headers(), signed.body()));
    }

    private static Notice.Payment paid(String merchantId, int n, String amount) {
        return new Notice.Payment(merchantId, ChannelId.WXPAY, new ChannelTradeNo("420000000000000000000000000" + n), new OutTradeNo("ORDER-" + n), "SUCCESS",
                new Money(new BigDecimal(amount), "CNY"));
    }

    @Test
    void eachPaidSubOrderIsAPaymentOfItsOwnOrder() {
        ChannelVerdict verdict = read("default", combine(MCHID, List.of(subOrder(MCHID, null, 1, "SUCCESS", 1000),
                subOrder(MCHID, null, 2, "SUCCESS", 2050), subOrder(MCHID, null, 3, "NOTPAY", 300))), API_V3_KEY);

        Notice.Combined combined = assertInstanceOf(Notice.Combined.class, assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice());
        assertEquals("COMBINE-1", combined.combineOutTradeNo().value());
        assertEquals(List.of(paid("default", 1, "10.00"), paid("default", 2, "20.50")), combined.payments());
        assertEquals(new Notice.Ignored("trade_state NOTPAY"), combined.subOrders().get(2));
    }

    @Test
    void aPartnersSubOrdersBelongToTheirSubMerchants() {
        ChannelVerdict verdict = read("market", combine(SP_MCHID, List.of(subOrder(SP_MCHID, "1900000201", 1, "SUCCESS", 100),
                subOrder(SP_MCHID, "1900000202", 2, "SUCCESS", 200))), PARTNER_KEY);

        assertEquals(List.of(paid("shop-a", 1, "1.00"), paid("shop-b", 2, "2.00")),
                ((Notice.Combined) ((ChannelVerdict.Accepted) verdict).notice()).payments());
    }

    @Test
    void aSubOrderNoMerchantOfOursOwnsHoldsTheWholeNotice() {
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"), read("market",
                combine(SP_MCHID, List.of(subOrder(SP_MCHID, "1900000201", 1, "SUCCESS", 100),
                        subOrder(SP_MCHID, "1900000999", 2, "SUCCESS", 200))), PARTNER_KEY));
        assertEquals(new ChannelVerdict.Malformed("a sub-order's mchid is not the configured merchant"), read("default",
                combine(MCHID, List.of(subOrder(MCHID, null, 1, "SUCCESS", 100), subOrder("1900000777", null, 2, "SUCCESS", 200))),
                API_V3_KEY));
        assertEquals(new ChannelVerdict.Malformed("combine_mchid is not the configured merchant"), read("default",
                combine("1900000777", List.of(subOrder(MCHID, null, 1, "SUCCESS", 100))), API_V3_KEY));
    }

    /** One sub-order of a sub-merchant not configured, among known ones, holds them all: nothing of it is stored. */
    @Test
    void oneUnknownSubMerchantAmongKnownOnesHoldsTheWholeCombine() {
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"), read("market",
                combine(SP_MCHID, List.of(subOrder(SP_MCHID, "1900000201", 1, "SUCCESS", 100),
                        subOrder(SP_MCHID, "1900000999", 2, "SUCCESS", 200),
                        subOrder(SP_MCHID, "1900000202", 3, "SUCCESS", 300))), PARTNER_KEY));
    }

    /**
     * A partner configured before any sub-merchant: its combine is held whatever its sub-orders name, including
     * sub-orders that name only the partner's {@code mchid}, as a direct merchant's would.
     */
    @Test
    void aPartnerWithNoSubMerchantYetHoldsItsCombines() {
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"), read("bare",
                combine(SP_MCHID, List.of(subOrder(SP_MCHID, "1900000201", 1, "SUCCESS", 100))), PARTNER_KEY));
        assertEquals(new ChannelVerdict.Malformed("missing sub_mchid"), read("bare",
                combine(SP_MCHID, List.of(subOrder(SP_MCHID, null, 1, "SUCCESS", 100))), PARTNER_KEY));
    }

    @Test
    void aCombineHoldsOneToFiftyOrdersEachReadable() {
        List<String> fifty = new ArrayList<>();
        for (int n = 1; n <= 51; n++) {
            fifty.add(subOrder(MCHID, null, n, "SUCCESS", n));
        }
        assertEquals(50, ((Notice.Combined) ((ChannelVerdict.Accepted) read("default", combine(MCHID, fifty.subList(0, 50)),
                API_V3_KEY)).notice()).payments().size());
        assertEquals(new ChannelVerdict.Malformed("sub_orders is not a list of 1 to 50 orders"),
                read("default", combine(MCHID, fifty), API_V3_KEY));
        assertEquals(new ChannelVerdict.Malformed("sub_orders is not a list of 1 to 50 orders"),
                read("default", combine(MCHID, List.of()), API_V3_KEY));
        assertEquals(new ChannelVerdict.Malformed("total_amount is not a whole number"), read("default", combine(MCHID,
                List.of(subOrder(MCHID, null, 1, "SUCCESS", 100).replace("total_amount", "total"))), API_V3_KEY));
    }

    @Test
    void aCombineWithNothingPaidIsIgnored() {
        Notice.Combined combined = (Notice.Combined) ((ChannelVerdict.Accepted) read("default",
                combine(MCHID, List.of(subOrder(MCHID, null, 1, "CLOSED", 100))), API_V3_KEY)).notice();
        assertEquals(List.of(), combined.payments());
    }
}
