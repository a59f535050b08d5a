package io.paycallback.platform;

import io.paycallback.inbox.CallbackLog;
import io.paycallback.lease.Scanner;
import io.paycallback.order.Refunds;
import io.paycallback.orderquery.OrderQueries;
import io.paycallback.orderquery.OrderQueryHandler;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;

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
class AlipayIsvTest extends AgainstFakeProviders {

    private static final String APP_PATH = "/pay/callback/alipay/" + PLATFORM;

    @Inject
    Scanner scanner;
    @Inject
    OrderQueryHandler reconciler;

    private String order(String merchantId, String amount) {
        String outTradeNo = Ids.unique("AI");
        Api.createOrder(merchantId, outTradeNo, amount, "CNY").then().statusCode(201);
        return outTradeNo;
    }

    @Test
    void anAuthorisingMerchantsPaymentPushedTwiceAtOncePaysItsOrderOnce() throws Exception {
        String outTradeNo = order(SHOP_A, "88.00");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        String tradeNo = Ids.unique("2026");
        SignedCallback callback = signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, tradeNo, new BigDecimal("88.00"), "TRADE_SUCCESS");

        List<Integer> statuses = Concurrently.times(4, () -> Send.post(APP_PATH, callback).statusCode());

        assertThat(statuses).containsOnly(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
        assertThat(db.rows("SELECT merchant_id FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo))
                .singleElement().satisfies(row -> assertThat(row.getString("merchant_id")).isEqualTo(SHOP_A));
        assertThat(db.count("SELECT COUNT(DISTINCT source) FROM outbox WHERE type = 'order.paid' AND merchant_id = ?"
                + " AND out_trade_no = ?", SHOP_A, outTradeNo)).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void aMerchantThePlatformDoesNotServeIsQuarantinedAndPaysNothing() {
        String outTradeNo = order(SHOP_A, "88.00");
        String tradeNo = Ids.unique("2026");

        Send.post(APP_PATH, signer.alipayIsvPayment("2021000000000999", outTradeNo, tradeNo, new BigDecimal("88.00"),
                "TRADE_SUCCESS")).then().statusCode(400);

        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE channel = 'alipay' AND merchant_id = ? AND reason = ?",
                PLATFORM, "auth_app_id is not a merchant app configured for this platform")).isPositive();
    }

    @Test
    void aRefundNoticeRefundsTheAuthorisingMerchantsOrder() {
        String outTradeNo = order(SHOP_B, "30.00");
        String tradeNo = Ids.unique("2026");
        Send.post(APP_PATH, signer.alipayIsvPayment(AUTH_APP_B, outTradeNo, tradeNo, new BigDecimal("30.00"), "TRADE_SUCCESS"))
                .then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_B, outTradeNo)));
        String outBizNo = Ids.unique("DASH");

        Send.post(APP_PATH, signer.alipayIsvRefund(AUTH_APP_B, outTradeNo, tradeNo, outBizNo, new BigDecimal("30.00"),
                new BigDecimal("10.00"))).then().statusCode(200);

        awaitRefundStatus(outBizNo, "SUCCEEDED");
        assertThat(db.first("SELECT merchant_id FROM refunds WHERE refund_no = ?", outBizNo).getString("merchant_id"))
                .isEqualTo(SHOP_B);
    }

    @Test
    void aQueryIsTheAppsCallWithTheMerchantsToken() {
        String outTradeNo = order(SHOP_A, "12.00");
        db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 2 HOUR) WHERE merchant_id = ? AND out_trade_no = ?",
                SHOP_A, outTradeNo);
        providers.subMerchantPayment("alipay", AUTH_APP_A, outTradeNo, "TRADE_SUCCESS", 1200, "CNY", Ids.unique("2026"));

        reconciler.enrol();
        scanner.drain(OrderQueries.TABLE);
        scanner.drain(CallbackLog.PAYMENT.leased());

        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PAID");
        assertThat(providers.requestsFor("alipay", "query", AUTH_APP_A + "/" + outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("alipay", "query", outTradeNo)).isEmpty();
    }

    @Test
    void aPaymentMadeTwiceIsRefundedWithTheMerchantsToken() {
        String outTradeNo = order(SHOP_A, "19.99");
        Send.post(APP_PATH, signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, Ids.unique("2026"), new BigDecimal("19.99"),
                "TRADE_SUCCESS")).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
        String second = Ids.unique("2026");
        providers.subMerchantPayment("alipay", AUTH_APP_A, Ids.unique("SECOND"), "TRADE_SUCCESS", 1999, "CNY", second);
        Send.post(APP_PATH, signer.alipayIsvPayment(AUTH_APP_A, outTradeNo, second, new BigDecimal("19.99"), "TRADE_SUCCESS"))
                .then().statusCode(200);
        String refundNo = "RFP" + db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", second).getLong("id");
        awaitRefundStatus(refundNo, "REQUESTED");

        scanner.drain(Refunds.SUBMISSIONS);
        scanner.drain(CallbackLog.REFUND.leased());

        awaitRefundStatus(refundNo, "SUCCEEDED");
        assertThat(db.first("SELECT merchant_id FROM refunds WHERE refund_no = ?", refundNo).getString("merchant_id"))
                .isEqualTo(SHOP_A);
        assertThat(providers.requestsFor("alipay", "refund", AUTH_APP_A + "/" + refundNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }

    @Test
    void anOrderIsClosedWithTheMerchantsToken() {
        String outTradeNo = order(SHOP_B, "19.99");
        providers.subMerchantPayment("alipay", AUTH_APP_B, outTradeNo, "WAIT_BUYER_PAY", 1999, "CNY", Ids.unique("2026"));

        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(200);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("CLOSED");
        assertThat(providers.requestsFor("alipay", "close", AUTH_APP_B + "/" + outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }
}
