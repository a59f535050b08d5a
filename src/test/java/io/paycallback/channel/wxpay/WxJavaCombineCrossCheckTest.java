package io.paycallback.channel.wxpay;

import com.github.binarywang.wxpay.bean.ecommerce.CombineTransactionsResult;
import com.github.binarywang.wxpay.bean.notify.CombineNotifyResult;
import com.github.binarywang.wxpay.bean.notify.WxPayPartnerRefundNotifyV3Result;
import com.github.binarywang.wxpay.v3.util.AesUtils;
import com.google.gson.Gson;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Notice;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static io.paycallback.channel.wxpay.WxPayFixture.API_V3_KEY;
import static io.paycallback.channel.wxpay.WxPayFixture.MCHID;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Our reading of combine (合单) and partner refund notices against WxJava's models of them (WxJava, unlike
 * wechatpay-java, has both): the resource WxJava decrypts and maps field by field is the notice we read, order by order.
 */
class WxJavaCombineCrossCheckTest {

    private static final KeyPair PLATFORM = TestKeys.rsa();
    private static final String SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final String SP_MCHID = "1230000109";
    private static final Gson GSON = new Gson();

    private final WxPayChannel channel = new WxPayChannel(Map.of(
            "default", new WxPayMerchant(MCHID, WxPayMerchant.apiV3Key(API_V3_KEY), Map.of(SERIAL, PLATFORM.getPublic())),
            "market", new WxPayMerchant(SP_MCHID, WxPayMerchant.apiV3Key(API_V3_KEY), Map.of(SERIAL, PLATFORM.getPublic()),
                    new Endpoint.Platform(Map.of("1900000201", "shop-a", "1900000202", "shop-b")))),
            Clock.fixed(NOW, ZoneOffset.UTC));

    private ChannelVerdict read(String pathId, String body) {
        CallbackRequest signed = WxPayFixture.signed(CallbackKind.PAYMENT, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);
        return channel.read(new CallbackRequest(pathId, CallbackKind.PAYMENT, signed.headers(), signed.body()));
    }

    /** What WxJava decrypts out of the notice's resource, with the APIv3 key. */
    private static String decrypted(String plaintext) throws Exception {
        return AesUtils.decryptToString(WxPayFixture.ASSOCIATED_DATA, WxPayFixture.NONCE,
                WxPayFixture.encrypt(plaintext, API_V3_KEY), API_V3_KEY);
    }

    @Test
    void aMerchantsCombineReadsAsWxJavasCombineNotifyResult() throws Exception {
        String plaintext = WxPayCombineChannelTest.combine(MCHID, List.of(
                WxPayCombineChannelTest.subOrder(MCHID, null, 1, "SUCCESS", 1000),
                WxPayCombineChannelTest.subOrder(MCHID, null, 2, "SUCCESS", 2050)));

        CombineNotifyResult.DecryptNotifyResult wxjava = GSON.fromJson(decrypted(plaintext),
                CombineNotifyResult.DecryptNotifyResult.class);
        Notice.Combined ours = (Notice.Combined) ((ChannelVerdict.Accepted) read("default",
                WxPayFixture.paymentBody(plaintext))).notice();

        assertEquals(wxjava.getCombineOutTradeNo(), ours.combineOutTradeNo().value());
        assertEquals(wxjava.getCombineMchid(), MCHID);
        assertEquals(wxjava.getSubOrders().size(), ours.payments().size());
        for (int i = 0; i < ours.payments().size(); i++) {
            CombineNotifyResult.SubOrders theirs = wxjava.getSubOrders().get(i);
            Notice.Payment payment = ours.payments().get(i);
            assertEquals(theirs.getOutTradeNo(), payment.outTradeNo().value());
            assertEquals(theirs.getTransactionId(), payment.channelTradeNo().value());
            assertEquals(theirs.getTradeState(), payment.tradeState());
            assertEquals(BigDecimal.valueOf(theirs.getAmount().getTotalAmount(), 2), payment.amount().amount());
            assertEquals(theirs.getAmount().getCurrency(), payment.amount().currency());
        }
    }

    @Test
    void aPartnersCombineReadsAsWxJavasCombineTransactionsResult() throws Exception {
        String plaintext = WxPayCombineChannelTest.combine(SP_MCHID, List.of(
                WxPayCombineChannelTest.subOrder(SP_MCHID, "1900000201", 1, "SUCCESS", 100),
                WxPayCombineChannelTest.subOrder(SP_MCHID, "1900000202", 2, "SUCCESS", 200)));

        CombineTransactionsResult wxjava = GSON.fromJson(decrypted(plaintext), CombineTransactionsResult.class);
        Notice.Combined ours = (Notice.Combined) ((ChannelVerdict.Accepted) read("market",
                WxPayFixture.paymentBody(plaintext))).notice();

        Map<String, String> merchants = Map.of("1900000201", "shop-a", "1900000202", "shop-b");
        for (int i = 0; i < ours.payments().size(); i++) {
            CombineTransactionsResult.SubOrders theirs = wxjava.getSubOrders().get(i);
            assertEquals(SP_MCHID, theirs.getMchid());
            assertEquals(merchants.get(theirs.getSubMchid()), ours.payments().get(i).merchantId());
            assertEquals(BigDecimal.valueOf(theirs.getAmount().getTotalAmount(), 2), ours.payments().get(i).amount().amount());
        }
    }

    @Test
    void aPartnersRefundReadsAsWxJavasPartnerRefundNotify() throws Exception {
        String plaintext = WxPayFixture.partnerRefund(SP_MCHID, "1900000202", "SUCCESS", 100);

        WxPayPartnerRefundNotifyV3Result.DecryptNotifyResult wxjava = GSON.fromJson(decrypted(plaintext),
                WxPayPartnerRefundNotifyV3Result.DecryptNotifyResult.class);
        Notice.Refund ours = (Notice.Refund) ((ChannelVerdict.Accepted) read("market",
                WxPayFixture.body("REFUND.SUCCESS", WxPayFixture.encrypt(plaintext, API_V3_KEY)))).notice();

        assertEquals(SP_MCHID, wxjava.getSpMchId());
        assertEquals("1900000202", wxjava.getSubMchId());
        assertEquals("shop-b", ours.merchantId());
        assertEquals(wxjava.getOutRefundNo(), ours.refundNo().value());
        assertEquals(wxjava.getRefundId(), ours.channelRefundId());
        assertEquals(BigDecimal.valueOf(wxjava.getAmount().getRefund(), 2), ours.amount().amount());
    }
}
