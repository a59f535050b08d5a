package io.paycallback.provider;

import io.paycallback.closing.CloseRequests;
import io.paycallback.lease.Scanner;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.MadeAccounts;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Providers;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.security.PrivateKey;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A merchant in certificate mode (证书模式: API keys, no pinned key) against the fake WeChat Pay: it downloads the
 * platform certificates itself, verifies a notice signed by a certificate WeChat Pay has just begun after one more
 * download with no operator's help, and keeps what it holds when a download fails, counting the failure.
 */
@QuarkusTest
class WxPayCertificateRotationTest extends AgainstFakeProviders {

    private static final Pattern FAILURES = Pattern.compile("(?m)^paycallback_wxpay_certificates_failures_total (\\S+)$");
    private static final Pattern FAILING = Pattern.compile("(?m)^paycallback_wxpay_certificates_failing (\\S+)$");

    private final ProviderKeys keys = ProviderKeys.fromConfig();

    @Inject
    Scanner scanner;

    private final MadeAccounts made = new MadeAccounts();

    @AfterEach
    void removeTheAccountsMade() {
        made.removeAll();
    }

    /** A merchant made through the API with the default merchant's API keys and no public key. */
    private String merchantInCertificateMode() {
        String id = ("wxcert-" + Ids.unique("").toLowerCase().replaceAll("[^a-z0-9]", "")).substring(0, 20);
        String merchant = "paycallback.merchants." + ProviderKeys.MERCHANT + ".wxpay.";
        Api.as(Api.ALICE_TOKEN).contentType(ContentType.JSON).body(Map.of("id", id))
                .post("/admin/registry/merchants").then().statusCode(201);
        Api.as(Api.ALICE_TOKEN).contentType(ContentType.JSON).body(Map.of(
                        "mchid", keys.wxMchid(), "apiV3Key", keys.apiV3Key(),
                        "merchantSerial", ConfigProvider.getConfig().getValue(merchant + "merchant-serial", String.class),
                        "merchantPrivateKey", ConfigProvider.getConfig().getValue(merchant + "merchant-private-key", String.class)))
                .put("/admin/registry/merchants/" + id + "/accounts/wxpay").then().statusCode(200);
        return made.made(id, "wxpay");
    }

    /** A paid notice of a new order of the merchant, signed by WeChat Pay's certificate of {@code serial}. */
    private SignedCallback paidNotice(String merchantId, String serial, PrivateKey key) {
        String outTradeNo = Ids.unique("CRT");
        Api.createOrder(merchantId, outTradeNo, "12.34", "CNY").then().statusCode(201);
        ProviderSigner signedBy = new ProviderSigner(new ProviderKeys(keys.wxMchid(), serial, key, keys.wxPublicDer(),
                keys.apiV3Key(), keys.alipayAppId(), keys.alipayPrivate(), keys.alipayPublicDer(), keys.stripeSecret(),
                keys.stripeConnectSecret()));
        return signedBy.wxPayment(outTradeNo, Ids.unique("42000"), 1234, "SUCCESS", Instant.now());
    }

    private int downloads() {
        return providers.requestsFor("wxpay", "certificates", keys.wxMchid()).size();
    }

    private static double failures() {
        return metric(FAILURES);
    }

    /** Merchants and partners whose last download failed, which the alert watches. */
    private static double failing() {
        return metric(FAILING);
    }

    private static double metric(Pattern line) {
        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher found = line.matcher(metrics);
        assertThat(found.find()).as("%s is exported", line).isTrue();
        return Double.parseDouble(found.group(1));
    }

    /** Past the least interval between two downloads asked for by notices (1 s in tests). */
    private static void pastTheLeastInterval() throws InterruptedException {
        Thread.sleep(1_200);
    }

    @Test
    void aNoticeSignedByANewCertificateVerifiesAfterOneDownload() throws InterruptedException {
        String merchantId = merchantInCertificateMode();
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, ProviderKeys.WX_CERTIFICATE_SERIAL,
                keys.wxPrivate())).then().statusCode(200);
        pastTheLeastInterval();

        Providers.WxCertificate next = providers.newWxCertificate();
        int before = downloads();
        SignedCallback signedByNext = paidNotice(merchantId, next.serial(), next.privateKey());
        Send.post("/pay/callback/wxpay/" + merchantId, signedByNext).then().statusCode(200);

        assertThat(downloads()).isEqualTo(before + 1);
        assertThat(providers.requestsFor("wxpay", "certificates", keys.wxMchid()))
                .allSatisfy(line -> assertThat(line).contains(" verified "));
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, next.serial(), next.privateKey()))
                .then().statusCode(200);
        assertThat(downloads()).as("a serial learned is not downloaded for again").isEqualTo(before + 1);
    }

    @Test
    void anAnswerSignedByANewCertificateFailsDownloadsOnceAndItsRetryVerifies() throws InterruptedException {
        String merchantId = merchantInCertificateMode();
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, ProviderKeys.WX_CERTIFICATE_SERIAL,
                keys.wxPrivate())).then().statusCode(200);
        pastTheLeastInterval();
        providers.mode("wxpay-signer", "certificate");
        providers.newWxCertificate();
        int before = downloads();
        String outTradeNo = Ids.unique("CRC");
        Api.createOrder(merchantId, outTradeNo, "12.34", "CNY").then().statusCode(201);

        Api.closeOrder(merchantId, outTradeNo).then().statusCode(202);
        await().atMost(WAIT).until(() -> downloads() == before + 1);

        db.update("UPDATE close_requests SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE out_trade_no = ?",
                outTradeNo);
        scanner.drain(CloseRequests.TABLE);
        assertThat(Api.orderStatus(merchantId, outTradeNo)).isEqualTo("CLOSED");
        assertThat(downloads()).isEqualTo(before + 1);
    }

    @Test
    void aFailedDownloadKeepsTheCertificatesHeldAndIsCounted() throws InterruptedException {
        String merchantId = merchantInCertificateMode();
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, ProviderKeys.WX_CERTIFICATE_SERIAL,
                keys.wxPrivate())).then().statusCode(200);
        double failedBefore = failures();
        pastTheLeastInterval();

        providers.mode("wxpay", "down");
        Providers.WxCertificate next = providers.newWxCertificate();
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, next.serial(), next.privateKey()))
                .then().statusCode(401);

        await().atMost(WAIT).until(() -> failures() > failedBefore);
        assertThat(failing()).isGreaterThanOrEqualTo(1);
        assertThat(certificateConcerns()).as("the overview says so, naming the mchid")
                .contains("certificates-failing " + keys.wxMchid());
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, ProviderKeys.WX_CERTIFICATE_SERIAL,
                keys.wxPrivate())).then().statusCode(200);

        providers.mode("wxpay", "ok");
        pastTheLeastInterval();
        Send.post("/pay/callback/wxpay/" + merchantId, paidNotice(merchantId, next.serial(), next.privateKey()))
                .then().statusCode(200);
        assertThat(failing()).isZero();
        assertThat(certificateConcerns()).doesNotContain("certificates-failing " + keys.wxMchid());
    }

    /** The overview's concerns about certificates, as {@code <concern> <mchid>}. */
    private static List<String> certificateConcerns() {
        List<Map<String, Object>> attention = Api.as(Api.ALICE_TOKEN).get("/admin/overview").then().statusCode(200)
                .extract().jsonPath().getList("attention");
        return attention.stream().filter(item -> ((String) item.get("concern")).startsWith("certificates-"))
                .map(item -> item.get("concern") + " " + item.get("subject")).toList();
    }
}
