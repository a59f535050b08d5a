package io.paycallback.channel.alipay;

import com.alipay.api.AlipayApiException;
import com.alipay.api.internal.util.AlipaySignature;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Notice;
import io.paycallback.channel.PublicKeys;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.util.HashMap;
import java.util.Map;

import static io.paycallback.channel.alipay.AlipayFixture.APP_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A platform's Alipay third-party application (第三方应用): Alipay signs the notices of the trades it made for the
 * merchants that authorised it; {@code app_id} is the application's own, {@code auth_app_id} the authorising merchant's
 * ("在服务商调用的场景下为授权方的 app_id"), which decides the merchant.
 */
class AlipayIsvChannelTest {

    private static final KeyPair ALIPAY = TestKeys.rsa();
    private static final String ISV_APP_ID = "2021000000000099";

    private final AlipayChannel channel = new AlipayChannel(Map.of(
            "default", new AlipayMerchant(APP_ID, PublicKeys.parse(TestKeys.base64Der(ALIPAY.getPublic()), "k")),
            "market", new AlipayMerchant(ISV_APP_ID, PublicKeys.parse(TestKeys.base64Der(ALIPAY.getPublic()), "k"),
                    new Endpoint.Platform(Map.of("2021000000000201", "shop-a", "2021000000000202", "shop-b"))),
            "bare", new AlipayMerchant(ISV_APP_ID, PublicKeys.parse(TestKeys.base64Der(ALIPAY.getPublic()), "k"),
                    new Endpoint.Platform(Map.of()))));

    static Map<String, String> onBehalfOf(String authAppId, Map<String, String> params) {
        Map<String, String> isv = new HashMap<>(params);
        isv.put("app_id", ISV_APP_ID);
        if (authAppId == null) {
            isv.remove("auth_app_id");
        } else {
            isv.put("auth_app_id", authAppId);
        }
        return isv;
    }

    private ChannelVerdict read(String pathId, Map<String, String> params) {
        Map<String, String> signed = AlipayFixture.signed(params, ALIPAY.getPrivate());
        CallbackRequest request = AlipayFixture.request(CallbackKind.PAYMENT, signed);
        return channel.read(new CallbackRequest(pathId, CallbackKind.PAYMENT, request.headers(), request.body()));
    }

    @Test
    void anAuthorisingMerchantsTradeIsItsOwn() {
        Notice.Payment payment = (Notice.Payment) assertInstanceOf(ChannelVerdict.Accepted.class,
                read("market", onBehalfOf("2021000000000202", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8")))).notice();
        assertEquals("shop-b", payment.merchantId());
        assertEquals("ORDER-1", payment.outTradeNo().value());
    }

    @Test
    void anAuthorisingMerchantsRefundIsItsOwn() {
        Notice.Refund refund = (Notice.Refund) assertInstanceOf(ChannelVerdict.Accepted.class,
                read("market", onBehalfOf("2021000000000201", AlipayFixture.refund("8.00")))).notice();
        assertEquals("shop-a", refund.merchantId());
    }

    @Test
    void aMerchantThePlatformDoesNotServeIsHeld() {
        assertEquals(new ChannelVerdict.Malformed("auth_app_id is not a merchant app configured for this platform"),
                read("market", onBehalfOf("2021000000000999", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8"))));
        assertEquals(new ChannelVerdict.Malformed("a third-party app's notice names no auth_app_id"),
                read("market", onBehalfOf(null, AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8"))));
    }

    /** An application no merchant has authorised yet: its notices are held until their merchant is configured. */
    @Test
    void anAppWithNoAuthorisingMerchantYetHoldsEveryNotice() {
        assertEquals(new ChannelVerdict.Malformed("auth_app_id is not a merchant app configured for this platform"),
                read("bare", onBehalfOf("2021000000000201", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8"))));
        assertEquals(new ChannelVerdict.Malformed("auth_app_id is not a merchant app configured for this platform"),
                read("bare", onBehalfOf("2021000000000201", AlipayFixture.refund("8.00"))));
        assertEquals(new ChannelVerdict.Malformed("a third-party app's notice names no auth_app_id"),
                read("bare", onBehalfOf(null, AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8"))));
    }

    @Test
    void eachEndpointTakesItsOwnAppsNotices() {
        assertEquals(new ChannelVerdict.BadSignature("app_id is not this merchant's"),
                read("market", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8")));
        assertEquals(new ChannelVerdict.BadSignature("app_id is not this merchant's"),
                read("default", onBehalfOf("2021000000000201", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8"))));
    }

    /** alipay-sdk-java's rsaCheckV1 accepts the same notice, auth_app_id inside the signed content. */
    @Test
    void theSdkVerifiesTheNoticeWeRead() throws AlipayApiException {
        Map<String, String> signed = AlipayFixture.signed(
                onBehalfOf("2021000000000201", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8")), ALIPAY.getPrivate());
        assertTrue(AlipaySignature.rsaCheckV1(new HashMap<>(signed), TestKeys.base64Der(ALIPAY.getPublic()), "utf-8", "RSA2"));
        assertTrue(AlipaySignature.getSignCheckContentV1(new HashMap<>(signed)).contains("auth_app_id=2021000000000201"));
        assertEquals("shop-a", ((Notice.Payment) ((ChannelVerdict.Accepted) read("market",
                onBehalfOf("2021000000000201", AlipayFixture.payment("TRADE_SUCCESS", "88.00", "utf-8")))).notice()).merchantId());
    }
}
