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
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Instant;
import java.util.Map;

import static io.paycallback.channel.wxpay.WxPayFixture.API_V3_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A partner's (服务商) notify_url: notices signed by WeChat Pay and encrypted with the partner's APIv3 key, naming the
 * partner ({@code sp_mchid}) and a sub-merchant ({@code sub_mchid}), whose merchant the notice is for.
 */
class WxPayPartnerChannelTest {

    private static final KeyPair PLATFORM = TestKeys.rsa();
    private static final String SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String SP_MCHID = WxPayFixture.SP_MCHID;
    private static final String PARTNER_KEY = WxPayFixture.PARTNER_KEY;

    private final WxPayChannel channel = WxPayFixture.withPartner(PLATFORM.getPublic(), SERIAL, NOW);

    private ChannelVerdict read(String pathId, CallbackKind kind, String plaintext, String apiV3Key) {
        String body = WxPayFixture.body(kind == CallbackKind.PAYMENT ? "TRANSACTION.SUCCESS" : "REFUND.SUCCESS",
                WxPayFixture.encrypt(plaintext, apiV3Key));
        CallbackRequest signed = WxPayFixture.signed(kind, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);
        return channel.read(new CallbackRequest(pathId, kind, signed.headers(), signed.body()));
    }

    @Test
    void aSubMerchantsPaymentIsItsMerchants() {
        ChannelVerdict verdict = read("market", CallbackKind.PAYMENT,
                WxPayFixture.partnerPayment(SP_MCHID, "1900000202", "SUCCESS", 8800), PARTNER_KEY);
        assertEquals(new ChannelVerdict.Accepted(new Notice.Payment("shop-b", ChannelId.WXPAY, new ChannelTradeNo("4200000001202601010000000001"),
                new OutTradeNo("ORDER-1"), "SUCCESS", new Money(new BigDecimal("88.00"), "CNY"))), verdict);
    }

    @Test
    void aSubMerchantsRefundIsItsMerchants() {
        Notice.Refund refund = assertInstanceOf(Notice.Refund.class, assertInstanceOf(ChannelVerdict.Accepted.class,
                read("market", CallbackKind.REFUND, WxPayFixture.partnerRefund(SP_MCHID, "1900000201", "SUCCESS", 100),
                        PARTNER_KEY)).notice());
        assertEquals("shop-a", refund.merchantId());
        assertEquals(new BigDecimal("1.00"), refund.amount().amount());
    }

    @Test
    void aSubMerchantThePartnerDoesNotServeIsHeldNotPaid() {
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"),
                read("market", CallbackKind.PAYMENT, WxPayFixture.partnerPayment(SP_MCHID, "1900000999", "SUCCESS", 8800),
                        PARTNER_KEY));
    }

    @Test
    void aNoticeForAnotherPartnerOrADirectMerchantIsHeld() {
        assertEquals(new ChannelVerdict.Malformed("sp_mchid is not the configured partner"), read("market", CallbackKind.PAYMENT,
                WxPayFixture.partnerPayment("1230000999", "1900000201", "SUCCESS", 8800), PARTNER_KEY));
        assertEquals(new ChannelVerdict.Malformed("sp_mchid is not the configured partner"), read("market", CallbackKind.PAYMENT,
                WxPayFixture.payment("SUCCESS", 8800), PARTNER_KEY));
        // And a partner's notice is no direct merchant's.
        assertEquals(new ChannelVerdict.Malformed("missing mchid"), read("default", CallbackKind.PAYMENT,
                WxPayFixture.partnerPayment(SP_MCHID, "1900000201", "SUCCESS", 8800), API_V3_KEY));
    }

    /**
     * A partner configured before any sub-merchant: its notices are held until their sub-merchant is configured, and
     * one shaped like a direct merchant's, naming the partner as {@code mchid}, is not the partner's either.
     */
    @Test
    void aPartnerWithNoSubMerchantYetHoldsEveryNotice() {
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"), read("bare",
                CallbackKind.PAYMENT, WxPayFixture.partnerPayment(SP_MCHID, "1900000201", "SUCCESS", 8800), PARTNER_KEY));
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"), read("bare",
                CallbackKind.REFUND, WxPayFixture.partnerRefund(SP_MCHID, "1900000201", "SUCCESS", 100), PARTNER_KEY));
        assertEquals(new ChannelVerdict.Malformed("sp_mchid is not the configured partner"), read("bare", CallbackKind.PAYMENT,
                WxPayFixture.payment("SUCCESS", 8800).replace(WxPayFixture.MCHID, SP_MCHID), PARTNER_KEY));
    }

    @Test
    void eachIsDecryptedWithItsOwnKey() {
        assertEquals(new ChannelVerdict.Malformed("resource does not decrypt"), read("market", CallbackKind.PAYMENT,
                WxPayFixture.partnerPayment(SP_MCHID, "1900000201", "SUCCESS", 8800), API_V3_KEY));
    }

    @Test
    void aSubMerchantsOwnPathTakesOnlyItsOwnNotices() {
        assertEquals("shop-a", ((Notice.Payment) ((ChannelVerdict.Accepted) read("shop-a", CallbackKind.PAYMENT,
                WxPayFixture.partnerPayment(SP_MCHID, "1900000201", "SUCCESS", 1), PARTNER_KEY)).notice()).merchantId());
        assertInstanceOf(ChannelVerdict.Malformed.class, read("shop-a", CallbackKind.PAYMENT,
                WxPayFixture.partnerPayment(SP_MCHID, "1900000202", "SUCCESS", 1), PARTNER_KEY));
    }

    @Test
    void anUnpaidStateIsIgnoredOnlyOnceTheSubMerchantIsKnown() {
        assertInstanceOf(Notice.Ignored.class, assertInstanceOf(ChannelVerdict.Accepted.class, read("market",
                CallbackKind.PAYMENT, WxPayFixture.partnerPayment(SP_MCHID, "1900000201", "NOTPAY", 1), PARTNER_KEY)).notice());
    }

    @Test
    void aStoredNoticeIsReadAgainForItsMerchant() {
        String body = WxPayFixture.body("TRANSACTION.SUCCESS",
                WxPayFixture.encrypt(WxPayFixture.partnerPayment(SP_MCHID, "1900000201", "SUCCESS", 1), PARTNER_KEY));
        ChannelVerdict verdict = channel.parseStored(new CallbackRequest("shop-a", CallbackKind.PAYMENT, Map.of(),
                body.getBytes(StandardCharsets.UTF_8)));
        assertEquals("shop-a", ((Notice.Payment) ((ChannelVerdict.Accepted) verdict).notice()).merchantId());
    }
}
