package io.paycallback.platform;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner.SubOrder;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static io.paycallback.testsupport.ProviderKeys.ACCOUNT_A;
import static io.paycallback.testsupport.ProviderKeys.AUTH_APP_A;
import static io.paycallback.testsupport.ProviderKeys.PLATFORM;
import static io.paycallback.testsupport.ProviderKeys.SUB_MCHID_A;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A platform ({@code market}) configured with its keys before any of its sub-merchants: what its endpoints receive is
 * held in quarantine under its id and answered with the provider's failure, so that the provider keeps pushing it
 * until the sub-merchant is configured. None of it is stored as a payment, the platform's or anyone's.
 */
@QuarkusTest
@TestProfile(PlatformWithoutSubMerchantsTest.NoSubMerchants.class)
class PlatformWithoutSubMerchantsTest extends AgainstPlatforms {

    public static class NoSubMerchants implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Platforms.platformKeys();
        }
    }

    @Test
    void aConnectEventIsHeldAndAnsweredAsAFailure() throws Exception {
        String outTradeNo = newOrder("19.99", "USD");
        String paymentIntent = Ids.unique("pi_");
        Instant now = Instant.now();
        SignedCallback event = signer.stripeConnect(ACCOUNT_A,
                signer.stripePayment(outTradeNo, paymentIntent, 1999, "usd", now), now);

        Response answer = Send.post("/pay/callback/stripe/" + PLATFORM, event);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.asString()).startsWith("{\"error\":");
        assertHeldOnly(event, "stripe", paymentIntent, outTradeNo,
                "the event's account is not a connected account configured for this platform");
    }

    @Test
    void aThirdPartyAppsNoticeIsHeldAndAnsweredFail() throws Exception {
        String outTradeNo = newOrder("88.00", "CNY");
        String tradeNo = Ids.unique("2026");
        SignedCallback notice = signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, tradeNo, new BigDecimal("88.00"),
                "TRADE_SUCCESS");

        Response answer = Send.post("/pay/callback/alipay/" + PLATFORM, notice);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.asString()).isEqualTo("fail");
        assertHeldOnly(notice, "alipay", tradeNo, outTradeNo, "auth_app_id is not a merchant app configured for this platform");
    }

    @Test
    void aPartnersNoticeIsHeldAndAnsweredFail() throws Exception {
        String outTradeNo = newOrder("88.00", "CNY");
        String transactionId = Ids.unique("42000");
        SignedCallback notice = signer.wxPartnerPayment(SUB_MCHID_A, outTradeNo, transactionId, 8800, "SUCCESS", Instant.now());

        Response answer = Send.post("/pay/callback/wxpay/" + PLATFORM, notice);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.asString()).contains("\"code\":\"FAIL\"");
        assertHeldOnly(notice, "wxpay", transactionId, outTradeNo, "sub_mchid is not a sub-merchant configured for this partner");
    }

    /** The partner's combine, its sub-orders naming the partner as {@code mchid}, is no payment of the partner's. */
    @Test
    void aPartnersCombineIsHeldAndAnsweredFail() throws Exception {
        String outTradeNo = newOrder("10.00", "CNY");
        String transactionId = Ids.unique("42000");
        SignedCallback combine = signer.wxCombine(ProviderKeys.WX_PARTNER_API_V3_KEY, ProviderKeys.WX_PARTNER_MCHID,
                Ids.unique("CMB"), List.of(new SubOrder(ProviderKeys.WX_PARTNER_MCHID, SUB_MCHID_A, outTradeNo,
                        transactionId, "SUCCESS", 1000)), Instant.now());

        Response answer = Send.post("/pay/callback/wxpay/" + PLATFORM, combine);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.asString()).contains("\"code\":\"FAIL\"");
        assertHeldOnly(combine, "wxpay", transactionId, outTradeNo, "sub_mchid is not a sub-merchant configured for this partner");
    }

    /**
     * This very notice held under the platform's id for that reason, nothing stored of its trade or for the platform,
     * and the direct merchant's order of the same number untouched.
     */
    private void assertHeldOnly(SignedCallback callback, String channel, String tradeNo, String outTradeNo, String reason)
            throws Exception {
        String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(callback.body()));
        assertThat(db.rows("SELECT merchant_id, channel, reason FROM quarantine WHERE body_hash = ?", hash))
                .singleElement().satisfies(row -> {
                    assertThat(row.getString("merchant_id")).isEqualTo(PLATFORM);
                    assertThat(row.getString("channel")).isEqualTo(channel);
                    assertThat(row.getString("reason")).isEqualTo(reason);
                });
        assertHeld(channel, PLATFORM, tradeNo, reason);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE merchant_id = ? OR out_trade_no = ?",
                PLATFORM, outTradeNo)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM orders WHERE merchant_id = ?", PLATFORM)).isZero();
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }
}
