package io.paycallback.platform;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner.SubOrder;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.paycallback.testsupport.ProviderKeys.PLATFORM;
import static io.paycallback.testsupport.ProviderKeys.SHOP_A;
import static io.paycallback.testsupport.ProviderKeys.SHOP_B;
import static io.paycallback.testsupport.ProviderKeys.SUB_MCHID_A;
import static io.paycallback.testsupport.ProviderKeys.SUB_MCHID_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A WeChat Pay partner (服务商, the platform {@code market}) collecting for two merchants of ours, its sub-merchants
 * (特约商户): its notices are verified with WeChat Pay's keys, decrypted with the partner's APIv3 key and belong to the
 * merchant of the {@code sub_mchid} they name; every call for such a merchant is signed by the partner and names the
 * sub-merchant (the partner transaction endpoints, {@code sub_mchid} on refunds). The direct merchant runs beside it.
 */
@QuarkusTest
@TestProfile(Platforms.class)
class WxPayPartnerTest extends AgainstPlatforms {

    private static final String PARTNER_PATH = "/pay/callback/wxpay/" + PLATFORM;

    private SignedCallback paid(String subMchid, String outTradeNo, String transactionId, long fen) {
        return signer.wxPartnerPayment(subMchid, outTradeNo, transactionId, fen, "SUCCESS", Instant.now());
    }

    @Test
    void aSubMerchantsPaymentPushedTwiceAtOncePaysItsMerchantsOrderOnce() throws Exception {
        String outTradeNo = order(SHOP_A, "88.00", "CNY");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        String transactionId = Ids.unique("42000");

        pushedAtOnce(PARTNER_PATH, paid(SUB_MCHID_A, outTradeNo, transactionId, 8800));

        assertPaidOnce(SHOP_A, outTradeNo, transactionId);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void aSubMerchantThePartnerDoesNotServeIsQuarantinedAndPaysNothing() {
        String outTradeNo = order(SHOP_A, "88.00", "CNY");
        String transactionId = Ids.unique("42000");

        Send.post(PARTNER_PATH, paid("1900000999", outTradeNo, transactionId, 8800)).then().statusCode(400);

        assertHeld("wxpay", PLATFORM, transactionId, "sub_mchid is not a sub-merchant configured for this partner");
        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void aPartnerRefundNoticeRefundsItsSubMerchantsOrder() {
        String outTradeNo = order(SHOP_B, "30.00", "CNY");
        String transactionId = Ids.unique("42000");
        Send.post(PARTNER_PATH, paid(SUB_MCHID_B, outTradeNo, transactionId, 3000)).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_B, outTradeNo)));
        String outRefundNo = Ids.unique("DASH");

        Send.post("/refund/callback/wxpay/" + PLATFORM, signer.wxPartnerRefund(SUB_MCHID_B, outTradeNo, transactionId,
                outRefundNo, Ids.unique("5030"), 3000, 1000, "SUCCESS", Instant.now())).then().statusCode(200);

        assertRefundOf(SHOP_B, outRefundNo, "SUCCEEDED");
        await().atMost(WAIT).until(() -> events("refund.succeeded", outTradeNo) == 1);
    }

    /** A partner's combine: its sub-orders are its sub-merchants' orders, each paid once however often it is pushed. */
    @Test
    void aPartnersCombinePaysEachSubMerchantsOrderOnce() throws Exception {
        String first = order(SHOP_A, "10.00", "CNY");
        String second = order(SHOP_B, "20.00", "CNY");
        String third = order(SHOP_A, "30.00", "CNY");
        SignedCallback callback = signer.wxCombine(ProviderKeys.WX_PARTNER_API_V3_KEY, ProviderKeys.WX_PARTNER_MCHID,
                Ids.unique("CMB"), List.of(
                        new SubOrder(ProviderKeys.WX_PARTNER_MCHID, SUB_MCHID_A, first, Ids.unique("42000"), "SUCCESS", 1000),
                        new SubOrder(ProviderKeys.WX_PARTNER_MCHID, SUB_MCHID_B, second, Ids.unique("42000"), "SUCCESS", 2000),
                        new SubOrder(ProviderKeys.WX_PARTNER_MCHID, SUB_MCHID_A, third, Ids.unique("42000"), "SUCCESS", 3000)),
                Instant.now());

        pushedAtOnce(PARTNER_PATH, callback);

        for (String[] paid : new String[][]{{SHOP_A, first}, {SHOP_B, second}, {SHOP_A, third}}) {
            await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(paid[0], paid[1])));
            await().atMost(WAIT).until(() -> paidEvents(paid[0], paid[1]) == 1);
        }
    }

    /** A sub-merchant's order in the partner's combine: queried through the combine, its own sub-order read. */
    @Test
    void aSubMerchantsOrderInACombineIsQueriedThroughTheCombine() {
        String combine = Ids.unique("CMB");
        String outTradeNo = Ids.unique("SP");
        String sibling = Ids.unique("SP");
        Api.createCombinedOrder(SHOP_A, outTradeNo, "12.00", combine).then().statusCode(201);
        Api.createCombinedOrder(SHOP_B, sibling, "8.00", combine).then().statusCode(201);
        db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 2 HOUR) WHERE out_trade_no IN (?, ?)",
                outTradeNo, sibling);
        providers.subMerchantPayment("wxpay", SUB_MCHID_A, outTradeNo, "SUCCESS", 1200, "CNY", Ids.unique("42000"));
        providers.subMerchantPayment("wxpay", SUB_MCHID_B, sibling, "SUCCESS", 800, "CNY", Ids.unique("42000"));
        providers.wxCombine(combine, List.of(outTradeNo, sibling));

        queryRound();

        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PAID");
        assertThat(Api.orderStatus(SHOP_B, sibling)).isEqualTo("PAID");
        assertThat(providers.requestsFor("wxpay", "combine-query", combine)).hasSize(2)
                .allSatisfy(line -> assertThat(line).contains(" verified "));
    }

    @Test
    void aQueryUsesThePartnerEndpointNamingTheSubMerchant() {
        String outTradeNo = agedOrder(SHOP_A, "12.00", "CNY");
        providers.subMerchantPayment("wxpay", SUB_MCHID_A, outTradeNo, "SUCCESS", 1200, "CNY", Ids.unique("42000"));

        queryRound();

        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PAID");
        assertAskedOnce("wxpay", "query", SUB_MCHID_A + "/" + outTradeNo);
        assertThat(providers.requestsFor("wxpay", "query", outTradeNo)).isEmpty();
    }

    @Test
    void aPaymentMadeTwiceIsRefundedForTheSubMerchantAndAskedAboutThere() {
        String outTradeNo = order(SHOP_A, "19.99", "CNY");
        Send.post(PARTNER_PATH, paid(SUB_MCHID_A, outTradeNo, Ids.unique("42000"), 1999)).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
        String second = Ids.unique("42000");
        providers.subMerchantPayment("wxpay", SUB_MCHID_A, Ids.unique("SECOND"), "SUCCESS", 1999, "CNY", second);
        Send.post(PARTNER_PATH, paid(SUB_MCHID_A, outTradeNo, second, 1999)).then().statusCode(200);
        String refundNo = refundOfSecondPayment(second);

        submittedThenQueried("wxpay", refundNo);

        assertRefundOf(SHOP_A, refundNo, "SUCCEEDED");
        assertAskedOnce("wxpay", "refund", SUB_MCHID_A + "/" + refundNo);
        assertAskedOnce("wxpay", "refund-query", SUB_MCHID_A + "/" + refundNo);
    }

    @Test
    void anOrderIsClosedAtThePartnerEndpointForItsSubMerchant() {
        String outTradeNo = order(SHOP_B, "19.99", "CNY");
        providers.subMerchantPayment("wxpay", SUB_MCHID_B, outTradeNo, "NOTPAY", 1999, "CNY", Ids.unique("42000"));

        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(200);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("CLOSED");
        assertAskedOnce("wxpay", "close", SUB_MCHID_B + "/" + outTradeNo);
    }

    @Test
    void aSubMerchantsPaidOrderCannotBeClosedAndIsPaidOnce() {
        String outTradeNo = order(SHOP_B, "19.99", "CNY");
        providers.subMerchantPayment("wxpay", SUB_MCHID_B, outTradeNo, "SUCCESS", 1999, "CNY", Ids.unique("42000"));

        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(409);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("PAID");
        assertThat(paidEvents(SHOP_B, outTradeNo)).isEqualTo(1);
    }
}
