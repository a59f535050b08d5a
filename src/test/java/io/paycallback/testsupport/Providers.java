package io.paycallback.testsupport;

import org.eclipse.microprofile.config.ConfigProvider;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import static io.restassured.RestAssured.given;

/** The test's handle on {@link FakeProviders}. */
public final class Providers {

    private final String base = ConfigProvider.getConfig().getValue("test.fake-providers.base-url", String.class);

    /** What the provider's query answers for the order from now on; amount in minor units. */
    public void payment(String provider, String outTradeNo, String state, long amount, String currency, String tradeNo) {
        given().queryParam("provider", provider).queryParam("outTradeNo", outTradeNo).queryParam("state", state)
                .queryParam("amount", amount).queryParam("currency", currency).queryParam("tradeNo", tradeNo)
                .post(base + "/control/payment").then().statusCode(200);
    }

    /**
     * A payment of a platform's sub-merchant (a Stripe connected account, a WeChat Pay partner's sub-merchant): found
     * only by calls that name it.
     */
    public void subMerchantPayment(String provider, String subMerchant, String outTradeNo, String state, long amount,
                                   String currency, String tradeNo) {
        given().queryParam("provider", provider).queryParam("account", subMerchant).queryParam("outTradeNo", outTradeNo)
                .queryParam("state", state).queryParam("amount", amount).queryParam("currency", currency)
                .queryParam("tradeNo", tradeNo).post(base + "/control/payment").then().statusCode(200);
    }

    /** A WeChat Pay combine (合单) of the orders whose payments were put in before; its query answers for them. */
    public void wxCombine(String combineOutTradeNo, List<String> outTradeNos) {
        given().queryParam("combine", combineOutTradeNo).queryParam("orders", String.join(",", outTradeNos))
                .post(base + "/control/combine").then().statusCode(200);
    }

    /** {@code ok}, {@code bad-signature}, {@code lose-answer}, {@code reject}, {@code refund-pending} or {@code down}. */
    public void mode(String provider, String mode) {
        given().queryParam("provider", provider).queryParam("mode", mode).post(base + "/control/mode").then().statusCode(200);
    }

    /**
     * What the provider's refund query answers for a refund it made without us (a dashboard refund): WeChat Pay by
     * out_refund_no, Stripe by the {@code re_...} id in the answer.
     */
    public void refundAnswer(String provider, String key, String answer) {
        given().queryParam("provider", provider).queryParam("key", key).body(answer)
                .post(base + "/control/refund-answer").then().statusCode(200);
    }

    /**
     * The trade bill the provider serves for the date from now on.
     *
     * @param status {@code ok}, {@code creating} (WeChat Pay only) or {@code none}
     * @param file   the file in the provider's format (WeChat Pay gzip, Alipay ZIP); empty for a bill that is not
     *               {@code ok}
     * @param sha1   WeChat Pay: the hash_value its answer states (a wrong one makes the download look tampered)
     */
    public void bill(String provider, LocalDate date, String status, byte[] file, String sha1) {
        bill(provider, null, date, status, file, sha1);
    }

    /** The same, for a platform's sub-merchant ({@code null}: the key's own merchant). */
    public void bill(String provider, String subMerchant, LocalDate date, String status, byte[] file, String sha1) {
        var request = given().queryParam("provider", provider).queryParam("date", date.toString())
                .queryParam("status", status).contentType("application/octet-stream").body(file);
        if (subMerchant != null) {
            request.queryParam("account", subMerchant);
        }
        if (sha1 != null) {
            request.queryParam("sha1", sha1);
        }
        request.post(base + "/control/bill").then().statusCode(200);
    }

    /** Stripe's balance transactions of the day, page by page as the API answers them (the first page first). */
    public void stripeBill(LocalDate date, List<byte[]> pages) {
        stripeBill(null, date, pages);
    }

    /** The same, of a connected account ({@code null}: the key's own account). */
    public void stripeBill(String account, LocalDate date, List<byte[]> pages) {
        for (int page = 0; page < pages.size(); page++) {
            var request = given().queryParam("provider", "stripe").queryParam("date", date.toString()).queryParam("page", page);
            if (account != null) {
                request.queryParam("account", account);
            }
            request.contentType("application/octet-stream").body(pages.get(page)).post(base + "/control/bill")
                    .then().statusCode(200);
        }
    }

    /** A certificate WeChat Pay's certificates list from now on, and its key pair's private half, to sign with. */
    public record WxCertificate(String serial, PrivateKey privateKey) {
    }

    /** WeChat Pay begins a new platform certificate, listed by {@code GET /v3/certificates} from now on. */
    public WxCertificate newWxCertificate() {
        String[] answer = given().post(base + "/control/wx-certificate").then().statusCode(200).extract().asString()
                .split("\n");
        return new WxCertificate(answer[0], privateKey(answer[1]));
    }

    private static PrivateKey privateKey(String base64Pkcs8) {
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64Pkcs8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A certificate Alipay signs with from now on: its SN, and its key pair's private half, to sign notices with. */
    public record AlipayCertificate(String sn, PrivateKey privateKey) {
    }

    /** Alipay moves to a new public-key certificate; the old one's SN is no longer named by its answers. */
    public AlipayCertificate newAlipayCertificate() {
        String[] answer = given().post(base + "/control/alipay-certificate").then().statusCode(200).extract().asString()
                .split("\n");
        return new AlipayCertificate(answer[0], privateKey(answer[1]));
    }

    public void reset() {
        given().post(base + "/control/reset").then().statusCode(200);
    }

    /**
     * {@code provider operation key verified|unverified millis}, one per request, in order; a Stripe call for a
     * connected account has the key {@code acct_.../key}.
     */
    public List<String> requests() {
        String text = given().get(base + "/control/requests").then().statusCode(200).extract().asString();
        return text.isBlank() ? List.of() : Arrays.asList(text.split("\n"));
    }

    public List<String> requestsFor(String provider, String operation, String key) {
        return requests().stream().filter(line -> line.startsWith(provider + " " + operation + " " + key + " ")).toList();
    }
}
