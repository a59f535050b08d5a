package io.paycallback.channel.alipay;

import com.alipay.api.AlipayApiException;
import com.alipay.api.internal.util.AlipaySignature;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.Notice;
import io.paycallback.channel.PublicKeys;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.security.KeyPair;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.paycallback.channel.alipay.AlipayFixture.APP_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our RSA2 rule against the official alipay-sdk-java, in both directions and in both charsets. */
class AlipaySdkCrossCheckTest {

    private static final KeyPair ALIPAY = TestKeys.rsa();
    private static final String PUBLIC_KEY = TestKeys.base64Der(ALIPAY.getPublic());
    private static final String PRIVATE_KEY = TestKeys.base64Der(ALIPAY.getPrivate());

    private final AlipayChannel channel = new AlipayChannel(Map.of("default",
            new AlipayMerchant(APP_ID, PublicKeys.parse(PUBLIC_KEY, "k"))));

    @ParameterizedTest
    @ValueSource(strings = {"utf-8", "gbk"})
    void sameSignedContentAsTheSdk(String charset) {
        Map<String, String> params = AlipayFixture.signed(AlipayFixture.payment("TRADE_SUCCESS", "88.00", charset), ALIPAY.getPrivate());
        assertEquals(AlipaySignature.getSignCheckContentV1(new HashMap<>(params)), AlipayChannel.signedContent(params));
    }

    @ParameterizedTest
    @ValueSource(strings = {"utf-8", "gbk"})
    void noticeSignedByTheSdkIsAccepted(String charset) throws AlipayApiException {
        Map<String, String> params = AlipayFixture.payment("TRADE_SUCCESS", "0.01", charset);
        String sign = AlipaySignature.rsaSign(AlipaySignature.getSignCheckContentV1(new HashMap<>(params)), PRIVATE_KEY, charset, "RSA2");
        Map<String, String> signed = new LinkedHashMap<>(params);
        signed.put("sign", sign);

        ChannelVerdict verdict = channel.read(AlipayFixture.request(CallbackKind.PAYMENT, signed));

        Notice.Payment payment = (Notice.Payment) assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice();
        assertEquals("0.01", payment.amount().amount().toPlainString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"utf-8", "gbk"})
    void noticeTheSdkAcceptsWeAcceptAndViceVersa(String charset) throws AlipayApiException {
        Map<String, String> signed = AlipayFixture.signed(AlipayFixture.payment("TRADE_SUCCESS", "88.00", charset), ALIPAY.getPrivate());

        assertTrue(AlipaySignature.rsaCheckV1(new HashMap<>(signed), PUBLIC_KEY, charset, "RSA2"));
        assertInstanceOf(ChannelVerdict.Accepted.class, channel.read(AlipayFixture.request(CallbackKind.PAYMENT, signed)));

        signed.put("total_amount", "0.01");
        assertFalse(AlipaySignature.rsaCheckV1(new HashMap<>(signed), PUBLIC_KEY, charset, "RSA2"));
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(AlipayFixture.request(CallbackKind.PAYMENT, signed)));
    }
}
