package io.paycallback.platform;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static io.paycallback.testsupport.ProviderKeys.AUTH_APP_A;
import static io.paycallback.testsupport.ProviderKeys.AUTH_APP_B;
import static io.paycallback.testsupport.ProviderKeys.PLATFORM;
import static io.paycallback.testsupport.ProviderKeys.SHOP_A;
import static io.paycallback.testsupport.ProviderKeys.SHOP_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An Alipay third-party application (第三方应用) of the platform {@code market}, authorised by two merchants of ours:
 * its notices (Alipay's signature, the app's {@code app_id}) belong to the merchant whose app they name as
 * {@code auth_app_id}; every call for such a merchant is the app's, signed with its key and carrying the merchant's
 * {@code app_auth_token}. The direct merchant runs beside it.
 */
@QuarkusTest
@TestProfile(Platforms.class)
class AlipayIsvTest extends AgainstPlatforms {

    private static final String APP_PATH = "/pay/callback/alipay/" + PLATFORM;

    @Test
    void anAuthorisingMerchantsPaymentPushedTwiceAtOncePaysItsOrderOnce() throws Exception {
        String outTradeNo = order(SHOP_A, "88.00", "CNY");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        String tradeNo = Ids.unique("2026");

        pushedAtOnce(APP_PATH, signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, tradeNo, new BigDecimal("88.00"), "TRADE_SUCCESS"));

        assertPaidOnce(SHOP_A, outTradeNo, tradeNo);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void aMerchantThePlatformDoesNotServeIsQuarantinedAndPaysNothing() {
        String outTradeNo = order(SHOP_A, "88.00", "CNY");
        String tradeNo = Ids.unique("2026");

        Send.post(APP_PATH, signer.alipayIsvPayment("2021000000000999", outTradeNo, tradeNo, new BigDecimal("88.00"),
                "TRADE_SUCCESS")).then().statusCode(400);

        assertHeld("alipay", PLATFORM, tradeNo, "auth_app_id is not a merchant app configured for this platform");
    }

    @Test
    void aRefundNoticeRefundsTheAuthorisingMerchantsOrder() {
        String outTradeNo = order(SHOP_B, "30.00", "CNY");
        String tradeNo = Ids.unique("2026");
        Send.post(APP_PATH, signer.alipayIsvPayment(AUTH_APP_B, outTradeNo, tradeNo, new BigDecimal("30.00"), "TRADE_SUCCESS"))
                .then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_B, outTradeNo)));
        String outBizNo = Ids.unique("DASH");

        Send.post(APP_PATH, signer.alipayIsvRefund(AUTH_APP_B, outTradeNo, tradeNo, outBizNo, new BigDecimal("30.00"),
                new BigDecimal("10.00"))).then().statusCode(200);

        assertRefundOf(SHOP_B, outBizNo, "SUCCEEDED");
    }

    @Test
    void aQueryIsTheAppsCallWithTheMerchantsToken() {
        String outTradeNo = agedOrder(SHOP_A, "12.00", "CNY");
        providers.subMerchantPayment("alipay", AUTH_APP_A, outTradeNo, "TRADE_SUCCESS", 1200, "CNY", Ids.unique("2026"));

        queryRound();

        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PAID");
        assertAskedOnce("alipay", "query", AUTH_APP_A + "/" + outTradeNo);
        assertThat(providers.requestsFor("alipay", "query", outTradeNo)).isEmpty();
    }

    @Test
    void aPaymentMadeTwiceIsRefundedWithTheMerchantsToken() {
        String outTradeNo = order(SHOP_A, "19.99", "CNY");
        Send.post(APP_PATH, signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, Ids.unique("2026"), new BigDecimal("19.99"),
                "TRADE_SUCCESS")).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
        String second = Ids.unique("2026");
        providers.subMerchantPayment("alipay", AUTH_APP_A, Ids.unique("SECOND"), "TRADE_SUCCESS", 1999, "CNY", second);
        Send.post(APP_PATH, signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, second, new BigDecimal("19.99"), "TRADE_SUCCESS"))
                .then().statusCode(200);
        String refundNo = refundOfSecondPayment(second);

        submittedThenQueried("alipay", refundNo);

        assertRefundOf(SHOP_A, refundNo, "SUCCEEDED");
        assertAskedOnce("alipay", "refund", AUTH_APP_A + "/" + refundNo);
        assertAskedOnce("alipay", "refund-query", AUTH_APP_A + "/" + refundNo);
    }

    @Test
    void anOrderIsClosedWithTheMerchantsToken() {
        String outTradeNo = order(SHOP_B, "19.99", "CNY");
        providers.subMerchantPayment("alipay", AUTH_APP_B, outTradeNo, "WAIT_BUYER_PAY", 1999, "CNY", Ids.unique("2026"));

        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(200);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("CLOSED");
        assertAskedOnce("alipay", "close", AUTH_APP_B + "/" + outTradeNo);
    }
}
