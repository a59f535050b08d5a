package io.paycallback.provider;

import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.MadeAccounts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Providers;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.security.PrivateKey;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An Alipay application in public-key certificate mode (公钥证书模式) against the fake Alipay: its requests carry the
 * app's and the root's SNs, its notices verify with the key of Alipay's certificate, and when Alipay moves to a new
 * certificate the first answer naming it downloads it (checked against the root), after which notices signed with it
 * verify too, with no operator's help.
 */
@QuarkusTest
class AlipayCertificateModeTest extends AgainstFakeProviders {

    private final ProviderKeys keys = ProviderKeys.fromConfig();

    private final MadeAccounts made = new MadeAccounts();

    @AfterEach
    void removeTheAccountsMade() {
        made.removeAll();
    }

    /** A merchant made through the API with the default merchant's app keys and the fake Alipay's certificates. */
    private String merchantInCertificateMode() {
        Config config = ConfigProvider.getConfig();
        String id = ("alicert-" + Ids.unique("").toLowerCase().replaceAll("[^a-z0-9]", "")).substring(0, 20);
        Api.as(Api.ALICE_TOKEN).contentType(ContentType.JSON).body(Map.of("id", id))
                .post("/admin/registry/merchants").then().statusCode(201);
        Api.as(Api.ALICE_TOKEN).contentType(ContentType.JSON).body(Map.of(
                        "appId", keys.alipayAppId(),
                        "appCertificate", config.getValue("test.fake-providers.alipay-app-certificate", String.class),
                        "alipayCertificate", config.getValue("test.fake-providers.alipay-certificate", String.class),
                        "alipayRootCertificate", config.getValue("test.fake-providers.alipay-root-certificate", String.class),
                        "appPrivateKey", config.getValue("paycallback.merchants." + ProviderKeys.MERCHANT
                                + ".alipay.app-private-key", String.class)))
                .put("/admin/registry/merchants/" + id + "/accounts/alipay").then().statusCode(200);
        return made.made(id, "alipay");
    }

    /** A paid notice of a new order of the merchant, signed with {@code key}. */
    private SignedCallback paidNotice(String merchantId, PrivateKey key) {
        String outTradeNo = Ids.unique("ACT");
        Api.createOrder(merchantId, outTradeNo, "12.34", "CNY").then().statusCode(201);
        ProviderSigner signedBy = new ProviderSigner(new ProviderKeys(keys.wxMchid(), keys.wxSerial(), keys.wxPrivate(),
                keys.wxPublicDer(), keys.apiV3Key(), keys.alipayAppId(), key, keys.alipayPublicDer(), keys.stripeSecret(),
                keys.stripeConnectSecret()));
        return signedBy.alipayPayment(outTradeNo, Ids.unique("2026"), new BigDecimal("12.34"), "TRADE_SUCCESS");
    }

    /** Closes a new order of the merchant, which Alipay holds unpaid: the close is a signed call and a verified answer. */
    private Response closeAnUnpaidOrder(String merchantId) {
        String outTradeNo = Ids.unique("ACL");
        Api.createOrder(merchantId, outTradeNo, "20.00", "CNY").then().statusCode(201);
        providers.payment("alipay", outTradeNo, "WAIT_BUYER_PAY", 2000, "CNY", Ids.unique("2026"));
        return Api.closeOrder(merchantId, outTradeNo);
    }

    @Test
    void requestsCarryTheSnsAndNoticesVerifyWithTheCertificatesKey() {
        String merchantId = merchantInCertificateMode();

        Send.post("/pay/callback/alipay/" + merchantId, paidNotice(merchantId, keys.alipayPrivate())).then().statusCode(200);
        Response closed = closeAnUnpaidOrder(merchantId);

        closed.then().statusCode(200);
        assertThat(closed.jsonPath().getString("status")).isEqualTo("CLOSED");
        assertThat(providers.requests()).as("no request came with a wrong app_cert_sn or alipay_root_cert_sn, none downloaded")
                .filteredOn(line -> line.startsWith("alipay certificate-")).isEmpty();
    }

    @Test
    void anAnswerNamingANewCertificateDownloadsItAndItsNoticesVerifyFromThen() {
        String merchantId = merchantInCertificateMode();
        Providers.AlipayCertificate next = providers.newAlipayCertificate();
        Send.post("/pay/callback/alipay/" + merchantId, paidNotice(merchantId, next.privateKey())).then().statusCode(401);

        Response closed = closeAnUnpaidOrder(merchantId);

        closed.then().statusCode(200);
        assertThat(closed.jsonPath().getString("status")).isEqualTo("CLOSED");
        assertThat(providers.requestsFor("alipay", "certificate-download", next.sn())).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        Send.post("/pay/callback/alipay/" + merchantId, paidNotice(merchantId, next.privateKey())).then().statusCode(200);
        Send.post("/pay/callback/alipay/" + merchantId, paidNotice(merchantId, keys.alipayPrivate())).then().statusCode(200);
        closeAnUnpaidOrder(merchantId).then().statusCode(200);
        assertThat(providers.requestsFor("alipay", "certificate-download", next.sn())).hasSize(1);
    }
}
