package io.paycallback.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.paycallback.channel.TestCertificates;
import io.paycallback.channel.alipay.AlipayCertificates;
import io.paycallback.provider.AlipayGatewayMessages;
import io.paycallback.channel.TestKeys;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.security.Signature;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * WeChat Pay, Alipay and Stripe APIs on loopback, as strict as the real ones where it matters: each request's
 * signature (or key) is checked as the provider checks it, each answer is signed with the provider's test key. Tests
 * steer it and read what it saw over {@code /control/...} (it lives in another class loader than the tests).
 *
 * <p>Per provider, a mode decides the next answers: {@code ok}; {@code bad-signature} (signed with a stranger's key);
 * {@code lose-answer} (the refund is made, but the answer comes after the client's timeout, once); {@code reject}
 * (a refund is refused with the provider's error code); {@code refund-pending} (a refund is accepted, not final); {@code down} (every request answers 503).
 *
 * <p>Trade bills are stored per provider and date over {@code /control/bill} (the test writes the file in the
 * provider's exact format) and served as the provider does: WeChat Pay's apply answer (signed, with the SHA-1 and a
 * download URL whose GET must be signed too), Alipay's download URL and ZIP, Stripe's balance transactions paged.
 */
final class FakeProviders {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern WX_AUTH = Pattern.compile(
            "WECHATPAY2-SHA256-RSA2048 mchid=\"([^\"]*)\",nonce_str=\"([^\"]*)\",signature=\"([^\"]*)\",timestamp=\"([^\"]*)\",serial_no=\"([^\"]*)\"");

    /**
     * What a query answers for one order.
     *
     * @param account Stripe: the connected account the PaymentIntent is on (only calls naming it in
     *                {@code Stripe-Account} find it); null for the key's own account
     */
    private record Payment(String state, long amountMinor, String currency, String tradeNo, String account) {
    }

    private final ProviderKeys keys;
    private final PublicKey wxMerchantPublic;
    private final PublicKey alipayAppPublic;
    private final String stripeApiKey;
    private final String wxMerchantSerial;
    private final long answerDelayMillis;
    private final PrivateKey stranger = TestKeys.rsa().getPrivate();
    /** The third-party app's authorisations: each app_auth_token to the app id of the merchant that granted it. */
    private static final Map<String, String> ALIPAY_AUTHORISATIONS = Map.of(
            ProviderKeys.APP_AUTH_TOKEN_A, ProviderKeys.AUTH_APP_A, ProviderKeys.APP_AUTH_TOKEN_B, ProviderKeys.AUTH_APP_B);
    private final Map<String, Payment> payments = new ConcurrentHashMap<>();
    private final Map<String, String> modes = new ConcurrentHashMap<>();
    private final Map<String, String> refundAnswers = new ConcurrentHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    /** WeChat Pay combines (合单) by combine_out_trade_no: the orders in each, whose payments are in {@link #payments}. */
    private final Map<String, List<String>> combines = new ConcurrentHashMap<>();
    /** Trade bills by provider and date ({@code wxpay/2026-12-02}): the file as the provider serves it, or a state. */
    private final Map<String, Bill> bills = new ConcurrentHashMap<>();
    /** Stripe's balance transaction pages by date, each as the API answers it (has_more included). */
    private final Map<String, List<byte[]>> stripePages = new ConcurrentHashMap<>();
    /** WeChat Pay's platform certificates (证书模式), the newest last: it signs the answer that lists them. */
    private final List<PlatformCertificate> wxCertificates = new CopyOnWriteArrayList<>();
    private final KeyPair wxRoot = TestKeys.rsa();
    /** Alipay's public-key certificate mode: a root, the intermediate that issues, the app's certificate. */
    private final KeyPair alipayRoot = TestKeys.rsa();
    private final KeyPair alipayIssuer = TestKeys.rsa();
    private final X509Certificate alipayRootCertificate = TestCertificates.root(alipayRoot, ALIPAY_ROOT_DN,
            new BigInteger("2026120701"), "SHA256withRSA");
    private final X509Certificate alipayIssuerCertificate = TestCertificates.issue(alipayIssuer, ALIPAY_ISSUER_DN,
            alipayRoot.getPrivate(), ALIPAY_ROOT_DN, new BigInteger("2026120702"), Instant.now().minus(Duration.ofDays(30)),
            Instant.now().plus(Duration.ofDays(3650)), "SHA256withRSA");
    private final X509Certificate alipayAppCertificate;
    /** Alipay's public-key certificates, the newest last: it signs the answers to certificate-mode requests. */
    private final List<AlipayCertificate> alipayCertificates = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private String base;

    private static final String ALIPAY_ROOT_DN = "CN=Ant Financial Certification Authority R1,OU=Certification Authority,O=Ant Financial,C=CN";
    private static final String ALIPAY_ISSUER_DN = "CN=Ant Financial Certification Authority Class 2 R1,OU=Certification Authority,O=Ant Financial,C=CN";

    /** An Alipay public-key certificate (its file: the certificate, then its issuer's), its SN and its key pair. */
    private record AlipayCertificate(String sn, KeyPair keys, String pem) {
    }

    /** A platform certificate and its key pair, which signs notices and answers under its serial. */
    private record PlatformCertificate(String serial, KeyPair keys, String pem, Instant effective, Instant expires) {
    }

    /**
     * @param status {@code ok}, {@code creating} (WeChat Pay STATEMENT_CREATING) or {@code none} (nothing booked)
     * @param body   WeChat Pay: the gzip; Alipay: the ZIP (Stripe's pages are kept apart, one by one)
     * @param sha1   WeChat Pay: the hash_value the apply answer states
     */
    private record Bill(String status, byte[] body, String sha1) {
    }

    FakeProviders(ProviderKeys keys, PublicKey wxMerchantPublic, String wxMerchantSerial, PublicKey alipayAppPublic,
                  String stripeApiKey, long answerDelayMillis) {
        this.keys = keys;
        this.wxMerchantPublic = wxMerchantPublic;
        this.wxMerchantSerial = wxMerchantSerial;
        this.alipayAppPublic = alipayAppPublic;
        this.stripeApiKey = stripeApiKey;
        this.answerDelayMillis = answerDelayMillis;
        this.wxCertificates.add(initialCertificate());
        this.alipayAppCertificate = TestCertificates.issue(new KeyPair(alipayAppPublic, null),
                "CN=" + keys.alipayAppId() + ",OU=Alipay.com,O=Test Merchant,C=CN", alipayIssuer.getPrivate(),
                ALIPAY_ISSUER_DN, new BigInteger("2026120703"), Instant.now().minus(Duration.ofDays(1)),
                Instant.now().plus(Duration.ofDays(1000)), "SHA256withRSA");
        this.alipayCertificates.add(alipayCertificate(new KeyPair(publicKey(keys.alipayPublicDer()), keys.alipayPrivate())));
    }

    /** The three certificates of public-key certificate mode as an operator configures them, PEM. */
    Map<String, String> alipayCertificateConfig() {
        return Map.of("test.fake-providers.alipay-app-certificate", TestCertificates.pem(alipayAppCertificate),
                "test.fake-providers.alipay-certificate", alipayCertificates.get(0).pem(),
                "test.fake-providers.alipay-root-certificate", TestCertificates.pem(alipayRootCertificate));
    }

    private AlipayCertificate alipayCertificate(KeyPair keyPair) {
        X509Certificate certificate = TestCertificates.issue(keyPair, "CN=" + keys.alipayAppId() + ",OU=Alipay.com,O=Alipay,C=CN",
                alipayIssuer.getPrivate(), ALIPAY_ISSUER_DN, new BigInteger(64, new java.security.SecureRandom()),
                Instant.now().minus(Duration.ofDays(1)), Instant.now().plus(Duration.ofDays(1000)), "SHA256withRSA");
        return new AlipayCertificate(AlipayCertificates.sn(certificate), keyPair,
                TestCertificates.pem(certificate) + TestCertificates.pem(alipayIssuerCertificate));
    }

    private static PublicKey publicKey(String base64Der) {
        try {
            return java.security.KeyFactory.getInstance("RSA").generatePublic(
                    new java.security.spec.X509EncodedKeySpec(Base64.getDecoder().decode(base64Der)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** WeChat Pay's first certificate: of its test key ({@link ProviderKeys#wxPrivate()}), under a serial of its own. */
    private PlatformCertificate initialCertificate() {
        return platformCertificate(ProviderKeys.WX_CERTIFICATE_SERIAL, new KeyPair(publicKey(keys.wxPublicDer()),
                keys.wxPrivate()));
    }

    private PlatformCertificate platformCertificate(String serial, KeyPair keyPair) {
        Instant effective = Instant.now().minus(Duration.ofDays(1));
        Instant expires = Instant.now().plus(Duration.ofDays(5 * 365));
        X509Certificate certificate = TestCertificates.issue(keyPair,
                "CN=Tenpay.com sign, OU=Tenpay.com CA Center, O=Tenpay.com, L=Shenzhen, C=CN", wxRoot.getPrivate(),
                "CN=Tenpay.com Root CA, OU=Tenpay.com CA Center, O=Tenpay.com, C=CN", new BigInteger(serial, 16),
                effective, expires, "SHA256withRSA");
        return new PlatformCertificate(serial, keyPair, TestCertificates.pem(certificate), effective, expires);
    }

    /** @param port 0 for any free port (the tests); a fixed one where a person types the URLs (the sandbox) */
    String start(int port) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext("/wx/", exchange -> handle(exchange, this::wx));
        server.createContext("/alipay/", exchange -> handle(exchange, this::alipayGateway));
        server.createContext("/stripe/", exchange -> handle(exchange, this::stripe));
        server.createContext("/control/", exchange -> handle(exchange, this::control));
        server.createContext("/control/bill", this::storeBill);
        server.createContext("/control/generated-bill", exchange -> handle(exchange, this::generatedBill));
        server.createContext("/wx/v3/billdownload/", this::wxBillFile);
        server.createContext("/alipay/download", this::alipayBillFile);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
        return base;
    }

    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private record Answer(int status, Map<String, String> headers, String body) {
        static Answer json(int status, String body) {
            return new Answer(status, Map.of("Content-Type", "application/json"), body);
        }
    }

    @FunctionalInterface
    private interface Handler {
        Answer handle(HttpExchange exchange, String body) throws Exception;
    }

    private void handle(HttpExchange exchange, Handler handler) throws IOException {
        Answer answer;
        try (InputStream in = exchange.getRequestBody()) {
            answer = handler.handle(exchange, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (Exception e) {
            answer = Answer.json(500, "{\"error\":\"" + e.getClass().getSimpleName() + "\"}");
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        answer.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
        exchange.close();
    }

    private String mode(String provider) {
        return modes.getOrDefault(provider, "ok");
    }

    /** One line per request: provider, operation, key, whether its signature verified, and the time. */
    private void record(String provider, String operation, String key, boolean verified) {
        requests.add(provider + " " + operation + " " + key + " " + (verified ? "verified" : "unverified") + " "
                + System.currentTimeMillis());
    }

    /** Answers once, after the client gave up waiting: the effect happened, the answer is lost. */
    private void loseAnswerOnce(String provider) throws InterruptedException {
        if (modes.remove(provider, "lose-answer")) {
            Thread.sleep(answerDelayMillis);
        }
    }

    // ---- WeChat Pay v3 ----

    private Answer wx(HttpExchange exchange, String body) throws Exception {
        String uri = exchange.getRequestURI().getRawPath().substring("/wx".length())
                + (exchange.getRequestURI().getRawQuery() == null ? "" : "?" + exchange.getRequestURI().getRawQuery());
        String method = exchange.getRequestMethod();
        String signer = wxRequestSigner(exchange.getRequestHeaders().getFirst("Authorization"), method, uri, body);
        boolean verified = keys.wxMchid().equals(signer);
        if (mode("wxpay").equals("down")) {
            return Answer.json(503, "{\"code\":\"SYSTEM_ERROR\",\"message\":\"系统错误\"}");
        }
        if (uri.equals("/v3/certificates") && method.equals("GET")) {
            return wxCertificates(signer);
        }
        if (uri.startsWith("/v3/combine-transactions/out-trade-no/") && method.equals("GET")) {
            return wxCombineQuery(uri, signer);
        }
        if (uri.startsWith("/v3/combine-transactions/out-trade-no/") && uri.endsWith("/close") && method.equals("POST")) {
            return wxCombineClose(uri, body, signer);
        }
        if (uri.startsWith("/v3/pay/partner/transactions/out-trade-no/")) {
            return wxPartnerTransaction(uri, method, body, ProviderKeys.WX_PARTNER_MCHID.equals(signer));
        }
        if (uri.startsWith("/v3/pay/transactions/out-trade-no/") && uri.endsWith("/close") && method.equals("POST")) {
            String outTradeNo = URLDecoder.decode(uri.substring(34, uri.length() - "/close".length()), StandardCharsets.UTF_8);
            record("wxpay", "close", outTradeNo, verified && keys.wxMchid().equals(JSON.readTree(body).path("mchid").asText()));
            if (!verified) {
                return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
            }
            Payment payment = ownPayment("wxpay/" + outTradeNo);
            if (payment != null && payment.state().equals("SUCCESS")) {
                return Answer.json(400, "{\"code\":\"ORDERPAID\",\"message\":\"订单已支付\"}");
            }
            if (payment != null) {
                payments.put("wxpay/" + outTradeNo, new Payment("CLOSED", payment.amountMinor(), payment.currency(), payment.tradeNo(), null));
            }
            return wxSigned(204, "");
        }
        if (uri.startsWith("/v3/bill/tradebill?")) {
            Map<String, String> query = form(exchange.getRequestURI().getRawQuery());
            String subMchid = query.get("sub_mchid");
            String date = onAccount(subMchid, query.get("bill_date"));
            verified = subMchid == null ? verified : ProviderKeys.WX_PARTNER_MCHID.equals(signer);
            record("wxpay", "bill", date, verified);
            if (!verified) {
                return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
            }
            if (!"ALL".equals(query.get("bill_type")) || !"GZIP".equals(query.get("tar_type"))) {
                return Answer.json(400, "{\"code\":\"PARAM_ERROR\",\"message\":\"bill_type or tar_type\"}");
            }
            Bill bill = bills.getOrDefault("wxpay/" + date, new Bill("none", null, null));
            return switch (bill.status()) {
                case "generated" -> wxSigned(200, "{\"hash_type\":\"SHA1\",\"hash_value\":\"" + bill.sha1()
                        + "\",\"download_url\":\"" + base + "/wx/v3/billdownload/file?token=" + encode(date) + "&tartype=gzip\"}");
                case "creating" -> Answer.json(400, "{\"code\":\"STATEMENT_CREATING\",\"message\":\"账单生成中\"}");
                case "none" -> Answer.json(400, "{\"code\":\"NO_STATEMENT_EXIST\",\"message\":\"请求的账单文件不存在\"}");
                default -> wxSigned(200, "{\"hash_type\":\"SHA1\",\"hash_value\":\"" + bill.sha1()
                        + "\",\"download_url\":\"" + base + "/wx/v3/billdownload/file?token=" + encode(date) + "&tartype=gzip\"}");
            };
        }
        if (uri.startsWith("/v3/pay/transactions/out-trade-no/")) {
            String outTradeNo = URLDecoder.decode(uri.substring(34, uri.indexOf('?')), StandardCharsets.UTF_8);
            record("wxpay", "query", outTradeNo, verified);
            if (!verified) {
                return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
            }
            Payment payment = ownPayment("wxpay/" + outTradeNo);
            if (payment == null) {
                return Answer.json(404, "{\"code\":\"ORDER_NOT_EXIST\",\"message\":\"订单不存在\"}");
            }
            return wxSigned(200, """
                    {"appid":"wxd678efh567hg6787","mchid":"%s","out_trade_no":"%s","transaction_id":"%s",\
                    "trade_type":"JSAPI","trade_state":"%s","trade_state_desc":"支付成功","bank_type":"CMC",\
                    "attach":"","success_time":"2026-12-03T10:34:56+08:00","payer":{"openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"},\
                    "amount":{"total":%d,"payer_total":%d,"currency":"CNY","payer_currency":"CNY"}}"""
                    .formatted(keys.wxMchid(), outTradeNo, payment.tradeNo(), payment.state(), payment.amountMinor(),
                            payment.amountMinor()));
        }
        if (uri.startsWith("/v3/refund/domestic/refunds/") && method.equals("GET")) {
            String path = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
            String outRefundNo = URLDecoder.decode(path.substring("/v3/refund/domestic/refunds/".length()), StandardCharsets.UTF_8);
            String subMchid = form(exchange.getRequestURI().getRawQuery() == null ? "" : exchange.getRequestURI().getRawQuery())
                    .get("sub_mchid");
            verified = subMchid == null ? verified : ProviderKeys.WX_PARTNER_MCHID.equals(signer);
            record("wxpay", "refund-query", onAccount(subMchid, outRefundNo), verified);
            String stored = refundAnswers.get("wxpay/" + outRefundNo);
            if (!verified || stored == null) {
                return Answer.json(verified ? 404 : 401, verified ? "{\"code\":\"RESOURCE_NOT_EXISTS\"}" : "{\"code\":\"SIGN_ERROR\"}");
            }
            String status = mode("wxpay").equals("refund-pending") ? "PROCESSING" : "SUCCESS";
            return wxSigned(200, stored.replaceAll("\"status\":\"[A-Z]+\"", "\"status\":\"" + status + "\""));
        }
        if (uri.equals("/v3/refund/domestic/refunds") && method.equals("POST")) {
            JsonNode request = JSON.readTree(body);
            String outRefundNo = request.path("out_refund_no").asText();
            String subMchid = request.hasNonNull("sub_mchid") ? request.path("sub_mchid").asText() : null;
            verified = subMchid == null ? verified : ProviderKeys.WX_PARTNER_MCHID.equals(signer);
            record("wxpay", "refund", onAccount(subMchid, outRefundNo), verified);
            if (!verified) {
                return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
            }
            boolean elsewhere = payments.values().stream().anyMatch(payment ->
                    payment.tradeNo().equals(request.path("transaction_id").asText()) && !Objects.equals(payment.account(), subMchid));
            if (elsewhere) {
                return Answer.json(404, "{\"code\":\"RESOURCE_NOT_EXISTS\",\"message\":\"订单不存在\"}");
            }
            if (mode("wxpay").equals("reject")) {
                return Answer.json(403, "{\"code\":\"NOT_ENOUGH\",\"message\":\"基本账户余额不足\"}");
            }
            String status = mode("wxpay").equals("refund-pending") ? "PROCESSING" : "SUCCESS";
            String answer = refundAnswers.computeIfAbsent("wxpay/" + outRefundNo, key -> """
                    {"refund_id":"5030%s","out_refund_no":"%s","transaction_id":"%s","out_trade_no":"%s",\
                    "channel":"ORIGINAL","user_received_account":"招商银行信用卡0403","success_time":"2026-12-03T10:40:00+08:00",\
                    "create_time":"2026-12-03T10:39:58+08:00","status":"%s","funds_account":"AVAILABLE",\
                    "amount":{"total":%d,"refund":%d,"payer_total":%d,"payer_refund":%d,"settlement_refund":%d,\
                    "settlement_total":%d,"discount_refund":0,"currency":"CNY"}}"""
                    .formatted(UUID.randomUUID().toString().replace("-", "").substring(0, 20), outRefundNo,
                            request.path("transaction_id").asText(), request.path("out_trade_no").asText(""), status,
                            request.path("amount").path("total").asLong(), request.path("amount").path("refund").asLong(),
                            request.path("amount").path("total").asLong(), request.path("amount").path("refund").asLong(),
                            request.path("amount").path("refund").asLong(), request.path("amount").path("total").asLong()));
            loseAnswerOnce("wxpay");
            return wxSigned(200, answer);
        }
        return Answer.json(404, "{\"code\":\"NOT_FOUND\"}");
    }

    /**
     * A partner's sub-merchant's transaction: its query and its close, both naming the partner ({@code sp_mchid}, who
     * must have signed) and the sub-merchant; a transaction is found only under the sub-merchant it belongs to.
     */
    private Answer wxPartnerTransaction(String uri, String method, String body, boolean signedByPartner) throws IOException {
        String prefix = "/v3/pay/partner/transactions/out-trade-no/";
        boolean close = uri.endsWith("/close") && method.equals("POST");
        String outTradeNo = URLDecoder.decode(uri.substring(prefix.length(), close ? uri.length() - "/close".length()
                : uri.indexOf('?')), StandardCharsets.UTF_8);
        Map<String, String> named = close ? Map.of("sp_mchid", JSON.readTree(body).path("sp_mchid").asText(),
                "sub_mchid", JSON.readTree(body).path("sub_mchid").asText()) : form(uri.substring(uri.indexOf('?') + 1));
        String subMchid = named.get("sub_mchid");
        boolean verified = signedByPartner && ProviderKeys.WX_PARTNER_MCHID.equals(named.get("sp_mchid"));
        record("wxpay", close ? "close" : "query", onAccount(subMchid, outTradeNo), verified);
        if (!verified) {
            return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
        }
        Payment payment = Optional.ofNullable(payments.get("wxpay/" + outTradeNo))
                .filter(found -> Objects.equals(found.account(), subMchid)).orElse(null);
        if (close) {
            if (payment != null && payment.state().equals("SUCCESS")) {
                return Answer.json(400, "{\"code\":\"ORDERPAID\",\"message\":\"订单已支付\"}");
            }
            if (payment != null) {
                payments.put("wxpay/" + outTradeNo, new Payment("CLOSED", payment.amountMinor(), payment.currency(),
                        payment.tradeNo(), payment.account()));
            }
            return wxSigned(204, "");
        }
        if (payment == null) {
            return Answer.json(404, "{\"code\":\"ORDER_NOT_EXIST\",\"message\":\"订单不存在\"}");
        }
        return wxSigned(200, """
                {"sp_appid":"wx8888888888888888","sp_mchid":"%s","sub_appid":"wxd678efh567hg6999","sub_mchid":"%s",\
                "out_trade_no":"%s","transaction_id":"%s","trade_type":"JSAPI","trade_state":"%s",\
                "trade_state_desc":"支付成功","bank_type":"CMC","attach":"","success_time":"2026-12-03T10:34:56+08:00",\
                "payer":{"sp_openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o","sub_openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6p"},\
                "amount":{"total":%d,"payer_total":%d,"currency":"CNY","payer_currency":"CNY"}}"""
                .formatted(ProviderKeys.WX_PARTNER_MCHID, subMchid, outTradeNo, payment.tradeNo(), payment.state(),
                        payment.amountMinor(), payment.amountMinor()));
    }

    /**
     * A combine's query, answered by whoever made it (the merchant, or the partner, that signed the request): its
     * sub-orders are the payments the test put in it, a partner's naming their sub-merchant.
     */
    private Answer wxCombineQuery(String uri, String signer) {
        String combine = URLDecoder.decode(uri.substring("/v3/combine-transactions/out-trade-no/".length()), StandardCharsets.UTF_8);
        boolean verified = signer != null;
        record("wxpay", "combine-query", combine, verified);
        if (!verified) {
            return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
        }
        List<String> orders = combines.get(combine);
        if (orders == null) {
            return Answer.json(404, "{\"code\":\"ORDER_NOT_EXIST\",\"message\":\"订单不存在\"}");
        }
        StringBuilder subOrders = new StringBuilder();
        for (String outTradeNo : orders) {
            Payment payment = payments.get("wxpay/" + outTradeNo);
            subOrders.append(subOrders.isEmpty() ? "" : ",").append("""
                    {"mchid":"%s",%s"trade_type":"JSAPI","trade_state":"%s","bank_type":"OTHERS","attach":"",\
                    "success_time":"2026-12-03T10:34:56+08:00","transaction_id":"%s","out_trade_no":"%s",\
                    "amount":{"total_amount":%d,"currency":"CNY","payer_amount":%d,"payer_currency":"CNY"}}"""
                    .formatted(signer, payment.account() == null ? "" : "\"sub_mchid\":\"" + payment.account() + "\",",
                            payment.state(), payment.tradeNo(), outTradeNo, payment.amountMinor(), payment.amountMinor()));
        }
        return wxSigned(200, """
                {"combine_appid":"wxd678efh567hg6787","combine_mchid":"%s","combine_out_trade_no":"%s",\
                "scene_info":{"device_id":"POS1:1"},"sub_orders":[%s],\
                "combine_payer_info":{"openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}}""".formatted(signer, combine, subOrders));
    }

    /**
     * A combine's close, as strict as WeChat Pay's: it names every sub-order of the combine (mchid, out_trade_no, and a
     * partner's sub_mchid) or is refused; a paid combine is refused ORDERPAID; otherwise every sub-order is closed.
     */
    private Answer wxCombineClose(String uri, String body, String signer) throws IOException {
        String prefix = "/v3/combine-transactions/out-trade-no/";
        String combine = URLDecoder.decode(uri.substring(prefix.length(), uri.length() - "/close".length()), StandardCharsets.UTF_8);
        record("wxpay", "combine-close", combine, signer != null);
        if (signer == null) {
            return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
        }
        List<String> orders = combines.get(combine);
        if (orders == null) {
            return Answer.json(404, "{\"code\":\"ORDER_NOT_EXIST\",\"message\":\"订单不存在\"}");
        }
        java.util.Set<String> named = new java.util.HashSet<>();
        for (JsonNode sub : JSON.readTree(body).path("sub_orders")) {
            Payment payment = payments.get("wxpay/" + sub.path("out_trade_no").asText());
            if (payment == null || !signer.equals(sub.path("mchid").asText())
                    || !Objects.equals(payment.account(), sub.hasNonNull("sub_mchid") ? sub.path("sub_mchid").asText() : null)) {
                return Answer.json(400, "{\"code\":\"PARAM_ERROR\",\"message\":\"子单信息有误\"}");
            }
            named.add(sub.path("out_trade_no").asText());
        }
        if (!named.equals(new java.util.HashSet<>(orders))) {
            return Answer.json(400, "{\"code\":\"PARAM_ERROR\",\"message\":\"子单不完整\"}");
        }
        if (orders.stream().anyMatch(order -> payments.get("wxpay/" + order).state().equals("SUCCESS"))) {
            return Answer.json(400, "{\"code\":\"ORDERPAID\",\"message\":\"订单已支付\"}");
        }
        for (String order : orders) {
            Payment payment = payments.get("wxpay/" + order);
            payments.put("wxpay/" + order, new Payment("CLOSED", payment.amountMinor(), payment.currency(),
                    payment.tradeNo(), payment.account()));
        }
        return wxSigned(204, "");
    }

    /**
     * {@code GET /v3/certificates}: every platform certificate, encrypted with the APIv3 key of the merchant (or the
     * partner) that signed the request, the answer signed by the newest certificate.
     */
    private Answer wxCertificates(String signer) {
        record("wxpay", "certificates", String.valueOf(signer), signer != null);
        if (signer == null) {
            return Answer.json(401, "{\"code\":\"SIGN_ERROR\",\"message\":\"签名错误\"}");
        }
        String apiV3Key = ProviderKeys.WX_PARTNER_MCHID.equals(signer) ? ProviderKeys.WX_PARTNER_API_V3_KEY : keys.apiV3Key();
        String body = ProviderSigner.wxCertificates(apiV3Key, wxCertificates.stream().map(certificate ->
                new ProviderSigner.WxCertificate(certificate.serial(), certificate.pem(), certificate.effective(),
                        certificate.expires())).toList());
        PlatformCertificate newest = wxCertificates.get(wxCertificates.size() - 1);
        Map<String, String> headers = new LinkedHashMap<>(ProviderSigner.wxAnswerHeaders(newest.serial(),
                newest.keys().getPrivate(), body, Instant.now()));
        headers.put("Content-Type", "application/json");
        return new Answer(200, headers, body);
    }

    /** WeChat Pay begins a new platform certificate: listed from now on, beside the ones before. */
    private Answer newWxCertificate() {
        // As WeChat Pay writes a serial: the serial number in upper-case hexadecimal, so without a leading zero.
        String serial = new BigInteger(160, new java.security.SecureRandom()).setBit(159).toString(16)
                .toUpperCase(java.util.Locale.ROOT);
        PlatformCertificate certificate = platformCertificate(serial, TestKeys.rsa());
        wxCertificates.add(certificate);
        return new Answer(200, Map.of("Content-Type", "text/plain"), serial + "\n"
                + Base64.getEncoder().encodeToString(certificate.keys().getPrivate().getEncoded()));
    }

    /** A payment of the key's own merchant, not of a sub-merchant. */
    private Payment ownPayment(String key) {
        return Optional.ofNullable(payments.get(key)).filter(payment -> payment.account() == null).orElse(null);
    }

    /** The mchid of a request whose Authorization verifies: a merchant's, or a partner's acting for a sub-merchant. */
    private String wxRequestSigner(String authorization, String method, String uri, String body) {
        if (authorization == null) {
            return null;
        }
        Matcher auth = WX_AUTH.matcher(authorization);
        if (!auth.matches() || !auth.group(5).equals(wxMerchantSerial)) {
            return null;
        }
        String message = method + "\n" + uri + "\n" + auth.group(4) + "\n" + auth.group(2) + "\n" + body + "\n";
        return verifies(wxMerchantPublic, message, auth.group(3)) ? auth.group(1) : null;
    }

    private static String encode(String value) {
        return java.net.URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /**
     * An answer signed with WeChat Pay's public key ({@code PUB_KEY_ID_...}), or, while the {@code wxpay-signer} mode is
     * {@code certificate}, with its newest platform certificate, as it answers a merchant in certificate mode.
     */
    private Answer wxSigned(int status, String body) {
        String timestamp = Long.toString(System.currentTimeMillis() / 1000);
        String nonce = UUID.randomUUID().toString().replace("-", "");
        PlatformCertificate newest = wxCertificates.get(wxCertificates.size() - 1);
        boolean certificate = mode("wxpay-signer").equals("certificate");
        PrivateKey key = mode("wxpay").equals("bad-signature") ? stranger
                : certificate ? newest.keys().getPrivate() : keys.wxPrivate();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Wechatpay-Timestamp", timestamp);
        headers.put("Wechatpay-Nonce", nonce);
        headers.put("Wechatpay-Serial", certificate ? newest.serial() : keys.wxSerial());
        headers.put("Wechatpay-Signature", ProviderSigner.rsaSha256(key,
                (timestamp + "\n" + nonce + "\n" + body + "\n").getBytes(StandardCharsets.UTF_8)));
        headers.put("Request-ID", UUID.randomUUID().toString());
        return new Answer(status, headers, body);
    }

    // ---- Alipay OpenAPI gateway ----

    /**
     * A request of an app in public-key certificate mode carries {@code app_cert_sn} and {@code alipay_root_cert_sn},
     * which must be the SNs of the app's certificate and of the root; its answer is signed by Alipay's newest
     * certificate and names that certificate's SN ({@code alipay_cert_sn}), which the app downloads
     * ({@code alipay.open.app.alipaycert.download}) when it does not hold it.
     */
    private Answer alipayGateway(HttpExchange exchange, String body) throws Exception {
        Map<String, String> params = form(body);
        String appCertSn = params.get("app_cert_sn");
        if (appCertSn == null) {
            return alipay(exchange, body);
        }
        String method = params.getOrDefault("method", "");
        boolean certified = appCertSn.equals(AlipayCertificates.sn(alipayAppCertificate))
                && AlipayCertificates.rootSn(List.of(alipayRootCertificate)).equals(params.get("alipay_root_cert_sn"));
        if (!certified) {
            record("alipay", "certificate-sn", appCertSn, false);
            return alipayCertified(method, "{\"code\":\"40002\",\"msg\":\"Invalid Arguments\",\"sub_code\":\"isv.invalid-app-cert-sn\"}");
        }
        if (method.equals("alipay.open.app.alipaycert.download")) {
            String sn = JSON.readTree(params.getOrDefault("biz_content", "{}")).path("alipay_cert_sn").asText();
            Optional<AlipayCertificate> found = alipayCertificates.stream().filter(one -> one.sn().equals(sn)).findFirst();
            record("alipay", "certificate-download", sn, found.isPresent());
            return alipayCertified(method, found.map(one -> "{\"code\":\"10000\",\"msg\":\"Success\",\"alipay_cert_content\":\""
                    + Base64.getEncoder().encodeToString(one.pem().getBytes(StandardCharsets.UTF_8)) + "\"}")
                    .orElse("{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"CERT_NOT_EXIST\"}"));
        }
        Answer answer = alipay(exchange, body);
        return AlipayGatewayMessages.answer(answer.body(), method)
                .map(signed -> alipayCertified(method, signed.responseJson())).orElse(answer);
    }

    /** An answer to a certificate-mode app: signed by Alipay's newest certificate, whose SN it names. */
    private Answer alipayCertified(String method, String response) {
        AlipayCertificate newest = alipayCertificates.get(alipayCertificates.size() - 1);
        PrivateKey key = mode("alipay").equals("bad-signature") ? stranger : newest.keys().getPrivate();
        String sign = ProviderSigner.rsaSha256(key, response.getBytes(StandardCharsets.UTF_8));
        String body = "{\"" + method.replace('.', '_') + "_response\":" + response + ",\"alipay_cert_sn\":\"" + newest.sn()
                + "\",\"sign\":\"" + sign + "\"}";
        return new Answer(200, Map.of("Content-Type", "text/html;charset=utf-8"), body);
    }

    /** Alipay moves to a new public-key certificate: its answers are signed by it from now on. */
    private Answer newAlipayCertificate() {
        AlipayCertificate certificate = alipayCertificate(TestKeys.rsa());
        alipayCertificates.add(certificate);
        return new Answer(200, Map.of("Content-Type", "text/plain"), certificate.sn() + "\n"
                + Base64.getEncoder().encodeToString(certificate.keys().getPrivate().getEncoded()));
    }

    private Answer alipay(HttpExchange exchange, String body) throws Exception {
        Map<String, String> params = form(body);
        String content = new TreeMap<>(params).entrySet().stream()
                .filter(e -> !e.getKey().equals("sign") && !e.getValue().isEmpty())
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("&"));
        boolean signed = "RSA2".equals(params.get("sign_type")) && params.get("sign") != null
                && verifies(alipayAppPublic, content, params.get("sign"));
        // A third-party app calls for the merchant whose authorisation its app_auth_token is; that merchant's trades
        // are the only ones it sees.
        String authApp = ALIPAY_AUTHORISATIONS.get(params.getOrDefault("app_auth_token", ""));
        boolean verified = signed && (keys.alipayAppId().equals(params.get("app_id")) && !params.containsKey("app_auth_token")
                || ProviderKeys.ALIPAY_ISV_APP_ID.equals(params.get("app_id")) && authApp != null);
        JsonNode biz = JSON.readTree(params.getOrDefault("biz_content", "{}"));
        String method = params.getOrDefault("method", "");
        if (mode("alipay").equals("down")) {
            return new Answer(503, Map.of("Content-Type", "text/html"), "Service Unavailable");
        }
        if (method.equals("alipay.trade.close")) {
            String outTradeNo = biz.path("out_trade_no").asText();
            record("alipay", "close", onAccount(authApp, outTradeNo), verified);
            if (!verified) {
                return alipaySigned(method, "{\"code\":\"40002\",\"msg\":\"Invalid Arguments\",\"sub_code\":\"isv.invalid-signature\"}");
            }
            Payment payment = Optional.ofNullable(payments.get("alipay/" + outTradeNo))
                    .filter(found -> Objects.equals(found.account(), authApp)).orElse(null);
            if (payment == null) {
                return alipaySigned(method, "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"ACQ.TRADE_NOT_EXIST\",\"sub_msg\":\"交易不存在\"}");
            }
            if (!payment.state().equals("WAIT_BUYER_PAY")) {
                return alipaySigned(method, "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"ACQ.TRADE_STATUS_ERROR\",\"sub_msg\":\"交易状态不合法\"}");
            }
            payments.put("alipay/" + outTradeNo, new Payment("TRADE_CLOSED", payment.amountMinor(), payment.currency(),
                    payment.tradeNo(), payment.account()));
            return alipaySigned(method, "{\"code\":\"10000\",\"msg\":\"Success\",\"trade_no\":\"" + payment.tradeNo()
                    + "\",\"out_trade_no\":\"" + outTradeNo + "\"}");
        }
        if (method.equals("alipay.trade.query")) {
            String outTradeNo = biz.path("out_trade_no").asText();
            record("alipay", "query", onAccount(authApp, outTradeNo), verified);
            if (!verified) {
                return alipaySigned(method, "{\"code\":\"40002\",\"msg\":\"Invalid Arguments\",\"sub_code\":\"isv.invalid-signature\",\"sub_msg\":\"验签出错\"}");
            }
            Payment payment = Optional.ofNullable(payments.get("alipay/" + outTradeNo))
                    .filter(found -> Objects.equals(found.account(), authApp)).orElse(null);
            if (payment == null) {
                return alipaySigned(method, "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"ACQ.TRADE_NOT_EXIST\",\"sub_msg\":\"交易不存在\",\"out_trade_no\":\"" + outTradeNo + "\"}");
            }
            String amount = yuan(payment.amountMinor());
            return alipaySigned(method, """
                    {"code":"10000","msg":"Success","trade_no":"%s","out_trade_no":"%s","buyer_logon_id":"159****5620",\
                    "trade_status":"%s","total_amount":"%s","buyer_pay_amount":"%s","point_amount":"0.00",\
                    "invoice_amount":"%s","send_pay_date":"2026-12-03 10:35:00","receipt_amount":"%s",\
                    "fund_bill_list":[{"fund_channel":"ALIPAYACCOUNT","amount":"%s"}],"buyer_user_id":"2088101117955611",\
                    "buyer_user_type":"PRIVATE"}""".formatted(payment.tradeNo(), outTradeNo, payment.state(), amount,
                    amount, amount, amount, amount));
        }
        if (method.equals("alipay.data.dataservice.bill.downloadurl.query")) {
            String date = onAccount(authApp, biz.path("bill_date").asText());
            record("alipay", "bill", date, verified);
            if (!verified) {
                return alipaySigned(method, "{\"code\":\"40002\",\"msg\":\"Invalid Arguments\",\"sub_code\":\"isv.invalid-signature\"}");
            }
            Bill bill = bills.get("alipay/" + date);
            if (bill == null || !"trade".equals(biz.path("bill_type").asText()) || bill.status().equals("none")) {
                return alipaySigned(method, "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"isp.bill_not_exist\",\"sub_msg\":\"账单不存在\"}");
            }
            return alipaySigned(method, "{\"code\":\"10000\",\"msg\":\"Success\",\"bill_download_url\":\""
                    + base + "/alipay/download?date=" + encode(date) + "\"}");
        }
        if (method.equals("alipay.trade.refund")) {
            String outRequestNo = biz.path("out_request_no").asText();
            record("alipay", "refund", onAccount(authApp, outRequestNo), verified);
            if (!verified) {
                return alipaySigned(method, "{\"code\":\"40002\",\"msg\":\"Invalid Arguments\",\"sub_code\":\"isv.invalid-signature\"}");
            }
            boolean elsewhere = payments.values().stream().anyMatch(payment ->
                    payment.tradeNo().equals(biz.path("trade_no").asText()) && !Objects.equals(payment.account(), authApp));
            if (elsewhere) {
                return alipaySigned(method, "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"ACQ.TRADE_NOT_EXIST\",\"sub_msg\":\"交易不存在\"}");
            }
            if (mode("alipay").equals("reject")) {
                return alipaySigned(method, "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"ACQ.SELLER_BALANCE_NOT_ENOUGH\",\"sub_msg\":\"卖家余额不足\"}");
            }
            String answer = refundAnswers.computeIfAbsent("alipay/" + outRequestNo, key -> """
                    {"code":"10000","msg":"Success","trade_no":"%s","out_trade_no":"%s","buyer_logon_id":"159****5620",\
                    "fund_change":"%s","refund_fee":"%s","gmt_refund_pay":"2026-12-03 10:40:00","buyer_user_id":"2088101117955611",\
                    "send_back_fee":"%s"}""".formatted(biz.path("trade_no").asText(), biz.path("out_trade_no").asText(),
                    mode("alipay").equals("refund-pending") ? "N" : "Y", biz.path("refund_amount").asText(),
                    biz.path("refund_amount").asText()));
            loseAnswerOnce("alipay");
            return alipaySigned(method, answer);
        }
        if (method.equals("alipay.trade.fastpay.refund.query")) {
            String outRequestNo = biz.path("out_request_no").asText();
            record("alipay", "refund-query", onAccount(authApp, outRequestNo), verified);
            String stored = refundAnswers.get("alipay/" + outRequestNo);
            if (!verified || stored == null || mode("alipay").equals("refund-pending")) {
                return alipaySigned(method, "{\"code\":\"10000\",\"msg\":\"Success\",\"out_request_no\":\"" + outRequestNo + "\"}");
            }
            JsonNode refund = JSON.readTree(stored);
            return alipaySigned(method, """
                    {"code":"10000","msg":"Success","trade_no":"%s","out_trade_no":"%s","out_request_no":"%s",\
                    "total_amount":"%s","refund_amount":"%s","refund_status":"REFUND_SUCCESS","gmt_refund_pay":"2026-12-03 10:40:00"}"""
                    .formatted(refund.path("trade_no").asText(), refund.path("out_trade_no").asText(), outRequestNo,
                            refund.path("refund_fee").asText(), refund.path("send_back_fee").asText()));
        }
        return alipaySigned("error", "{\"code\":\"40002\",\"msg\":\"Invalid Arguments\",\"sub_code\":\"isv.invalid-method\"}");
    }

    private Answer alipaySigned(String method, String response) {
        PrivateKey key = mode("alipay").equals("bad-signature") ? stranger : keys.alipayPrivate();
        String sign = ProviderSigner.rsaSha256(key, response.getBytes(StandardCharsets.UTF_8));
        String body = "{\"" + method.replace('.', '_') + "_response\":" + response + ",\"sign\":\"" + sign + "\"}";
        return new Answer(200, Map.of("Content-Type", "text/html;charset=utf-8"), body);
    }

    // ---- Stripe ----

    private Answer stripe(HttpExchange exchange, String body) throws Exception {
        boolean verified = ("Bearer " + stripeApiKey).equals(exchange.getRequestHeaders().getFirst("Authorization"));
        String account = exchange.getRequestHeaders().getFirst("Stripe-Account");
        String path = exchange.getRequestURI().getRawPath().substring("/stripe".length());
        if (mode("stripe").equals("down")) {
            return stripeError(503, "api_error", "unavailable");
        }
        if (path.startsWith("/v1/payment_intents/") && path.endsWith("/cancel") && exchange.getRequestMethod().equals("POST")) {
            String id = path.substring("/v1/payment_intents/".length(), path.length() - "/cancel".length());
            Map.Entry<String, Payment> found = payments.entrySet().stream()
                    .filter(entry -> entry.getKey().startsWith("stripe/") && entry.getValue().tradeNo().equals(id)
                            && Objects.equals(entry.getValue().account(), account))
                    .findFirst().orElse(null);
            record("stripe", "close", onAccount(account, found == null ? id : found.getKey().substring("stripe/".length())), verified);
            if (!verified) {
                return stripeError(401, "invalid_request_error", "api_key_invalid");
            }
            if (found == null) {
                return stripeError(404, "invalid_request_error", "resource_missing");
            }
            Payment payment = found.getValue();
            if (payment.state().equals("succeeded") || payment.state().equals("canceled")) {
                return stripeError(400, "invalid_request_error", "payment_intent_unexpected_state");
            }
            payments.put(found.getKey(), new Payment("canceled", payment.amountMinor(), payment.currency(), payment.tradeNo(),
                    payment.account()));
            return Answer.json(200, """
                    {"id":"%s","object":"payment_intent","amount":%d,"amount_received":0,"currency":"%s",\
                    "status":"canceled","cancellation_reason":"abandoned","metadata":{"out_trade_no":"%s"},"livemode":false}"""
                    .formatted(id, payment.amountMinor(), payment.currency(), found.getKey().substring("stripe/".length())));
        }
        if (path.equals("/v1/payment_intents/search")) {
            String query = URLDecoder.decode(exchange.getRequestURI().getRawQuery().substring("query=".length()),
                    StandardCharsets.UTF_8);
            String outTradeNo = query.substring(query.indexOf(":'") + 2, query.length() - 1);
            record("stripe", "query", onAccount(account, outTradeNo), verified);
            if (!verified) {
                return stripeError(401, "invalid_request_error", "api_key_invalid");
            }
            Payment payment = Optional.ofNullable(payments.get("stripe/" + outTradeNo))
                    .filter(found -> Objects.equals(found.account(), account)).orElse(null);
            String data = payment == null ? "" : """
                    {"id":"%s","object":"payment_intent","amount":%d,"amount_received":%d,"currency":"%s",\
                    "status":"%s","metadata":{"out_trade_no":"%s"},"livemode":false,"created":1764729600}"""
                    .formatted(payment.tradeNo(), payment.amountMinor(),
                            payment.state().equals("succeeded") ? payment.amountMinor() : 0, payment.currency(),
                            payment.state(), outTradeNo);
            return Answer.json(200, "{\"object\":\"search_result\",\"url\":\"/v1/payment_intents/search\",\"has_more\":false,\"data\":[" + data + "]}");
        }
        if (path.equals("/v1/balance_transactions")) {
            return stripeBalanceTransactions(form(exchange.getRequestURI().getRawQuery()), account, verified);
        }
        if (path.startsWith("/v1/refunds/") && exchange.getRequestMethod().equals("GET")) {
            String refundId = path.substring("/v1/refunds/".length());
            record("stripe", "refund-query", onAccount(account, refundId), verified);
            String stored = refundAnswers.values().stream().filter(answer -> answer.contains("\"id\":\"" + refundId + "\""))
                    .findFirst().orElse(null);
            if (!verified || stored == null) {
                return stripeError(verified ? 404 : 401, "invalid_request_error", verified ? "resource_missing" : "api_key_invalid");
            }
            String status = mode("stripe").equals("refund-pending") ? "pending" : "succeeded";
            return Answer.json(200, stored.replaceAll("\"status\":\"[a-z_]+\"", "\"status\":\"" + status + "\""));
        }
        if (path.equals("/v1/refunds") && exchange.getRequestMethod().equals("POST")) {
            Map<String, String> form = form(body);
            String idempotencyKey = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            record("stripe", "refund", onAccount(account, idempotencyKey), verified);
            if (!verified) {
                return stripeError(401, "invalid_request_error", "api_key_invalid");
            }
            boolean elsewhere = payments.values().stream().anyMatch(payment ->
                    payment.tradeNo().equals(form.get("payment_intent")) && !Objects.equals(payment.account(), account));
            if (elsewhere) {
                return stripeError(404, "invalid_request_error", "resource_missing");
            }
            if (mode("stripe").equals("reject")) {
                return stripeError(400, "invalid_request_error", "charge_already_refunded");
            }
            String status = mode("stripe").equals("refund-pending") ? "pending" : "succeeded";
            String answer = refundAnswers.computeIfAbsent("stripe/" + idempotencyKey, key -> """
                    {"id":"re_%s","object":"refund","amount":%s,"balance_transaction":"txn_1","charge":"ch_1",\
                    "created":1764729700,"currency":"usd","metadata":{"out_refund_no":"%s","out_trade_no":"%s"},\
                    "payment_intent":"%s","reason":"%s","receipt_number":null,"source_transfer_reversal":null,\
                    "status":"%s","transfer_reversal":null}""".formatted(UUID.randomUUID().toString().replace("-", ""),
                    form.get("amount"), form.get("metadata[out_refund_no]"), form.get("metadata[out_trade_no]"),
                    form.get("payment_intent"), form.get("reason"), status));
            loseAnswerOnce("stripe");
            return new Answer(200, Map.of("Content-Type", "application/json", "Idempotent-Replayed", "false"), answer);
        }
        return stripeError(404, "invalid_request_error", "resource_missing");
    }

    /** The stored pages of the day: the first, or the one after the page whose last transaction is starting_after. */
    private Answer stripeBalanceTransactions(Map<String, String> query, String account, boolean verified) throws IOException {
        long from = Long.parseLong(query.get("created[gte]"));
        String date = onAccount(account,
                java.time.Instant.ofEpochSecond(from).atZone(java.time.ZoneOffset.UTC).toLocalDate().toString());
        record("stripe", "bill", date + (query.containsKey("starting_after") ? "+" : ""), verified);
        if (!verified) {
            return stripeError(401, "invalid_request_error", "api_key_invalid");
        }
        if (!"data.source".equals(query.get("expand[]")) || !"100".equals(query.get("limit"))
                || Long.parseLong(query.get("created[lt]")) - from != 86_400) {
            return stripeError(400, "invalid_request_error", "parameter_invalid");
        }
        List<byte[]> pages = stripePages.getOrDefault(date, List.of());
        int page = 0;
        if (query.containsKey("starting_after")) {
            while (page < pages.size()) {
                JsonNode data = JSON.readTree(pages.get(page++)).path("data");
                if (data.size() > 0 && data.get(data.size() - 1).path("id").asText().equals(query.get("starting_after"))) {
                    break;
                }
            }
        }
        return page < pages.size() ? Answer.json(200, new String(pages.get(page), StandardCharsets.UTF_8))
                : Answer.json(200, "{\"object\":\"list\",\"url\":\"/v1/balance_transactions\",\"has_more\":false,\"data\":[]}");
    }

    // ---- bill files: binary bodies, outside the text handler ----

    private void storeBill(HttpExchange exchange) throws IOException {
        Map<String, String> params = form(exchange.getRequestURI().getRawQuery());
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        if (params.containsKey("page")) {
            List<byte[]> pages = stripePages.computeIfAbsent(onAccount(params.get("account"), params.get("date")),
                    date -> new CopyOnWriteArrayList<>());
            pages.add(Integer.parseInt(params.get("page")), body);
        } else {
            bills.put(params.get("provider") + "/" + onAccount(params.get("account"), params.get("date")),
                    new Bill(params.getOrDefault("status", "ok"), body, params.get("sha1")));
        }
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
    }

    private void wxBillFile(HttpExchange exchange) throws IOException {
        String uri = exchange.getRequestURI().getRawPath().substring("/wx".length()) + "?" + exchange.getRequestURI().getRawQuery();
        String signer = wxRequestSigner(exchange.getRequestHeaders().getFirst("Authorization"), "GET", uri, "");
        boolean verified = keys.wxMchid().equals(signer) || ProviderKeys.WX_PARTNER_MCHID.equals(signer);
        String date = form(exchange.getRequestURI().getRawQuery()).get("token");
        record("wxpay", "bill-download", date, verified);
        Bill bill = bills.get("wxpay/" + date);
        if (!verified || bill == null) {
            byte[] error = "{\"code\":\"SIGN_ERROR\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(verified ? 404 : 401, error.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(error);
            }
            exchange.close();
            return;
        }
        if (bill.status().equals("generated")) {
            exchange.getResponseHeaders().add("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                io.paycallback.statement.bill.BillFiles.wxPayGzip(generated(bill), io.paycallback.statement.bill.BillFiles.WxOptions.standard(), out);
            }
            exchange.close();
            return;
        }
        binary(exchange, "application/octet-stream", bill.body());
    }

    /**
     * A WeChat Pay bill of {@code lines} payments written as it is served, never held: line i pays order
     * {@code <prefix><i>} (transaction {@code 4200<prefix><i>}) 1.00 CNY. Its SHA-1 is computed by writing it once.
     */
    private Answer generatedBill(HttpExchange exchange, String body) throws IOException {
        Map<String, String> params = form(exchange.getRequestURI().getRawQuery());
        String spec = params.get("prefix") + "/" + params.get("lines");
        String sha1 = io.paycallback.statement.bill.BillFiles.wxPay(generated(new Bill("generated", spec.getBytes(StandardCharsets.UTF_8), null)),
                io.paycallback.statement.bill.BillFiles.WxOptions.standard(), OutputStream.nullOutputStream()).sha1Hex();
        bills.put("wxpay/" + params.get("date"), new Bill("generated", spec.getBytes(StandardCharsets.UTF_8), sha1));
        return new Answer(200, Map.of("Content-Type", "text/plain"), sha1);
    }

    private static java.util.Iterator<io.paycallback.statement.bill.BillLine> generated(Bill bill) {
        String[] spec = new String(bill.body(), StandardCharsets.UTF_8).split("/");
        String prefix = spec[0];
        long lines = Long.parseLong(spec[1]);
        BigDecimal amount = new BigDecimal("1.00");
        return java.util.stream.LongStream.rangeClosed(1, lines).mapToObj(i -> new io.paycallback.statement.bill.BillLine(
                io.paycallback.statement.bill.BillLine.Kind.PAYMENT, prefix + i, "4200" + prefix + i, null, null, amount,
                "CNY", io.paycallback.statement.bill.BillLine.State.SUCCEEDED, i)).iterator();
    }

    private void alipayBillFile(HttpExchange exchange) throws IOException {
        String date = form(exchange.getRequestURI().getRawQuery()).get("date");
        record("alipay", "bill-download", date, true);
        binary(exchange, "application/oct-stream", bills.get("alipay/" + date).body());
    }

    private static void binary(HttpExchange exchange, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().add("Content-Type", type);
        // Chunked, as a big file is served: the client must stream it, it cannot know the length up front.
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
        exchange.close();
    }

    /**
     * A key as seen from a sub-merchant (a Stripe connected account, a WeChat Pay partner's sub-merchant):
     * {@code <sub-merchant>/key}; the key itself for the key's own merchant.
     */
    private static String onAccount(String account, String key) {
        return account == null ? key : account + "/" + key;
    }

    private static Answer stripeError(int status, String type, String code) {
        return Answer.json(status, "{\"error\":{\"type\":\"" + type + "\",\"code\":\"" + code + "\",\"message\":\"" + code + "\"}}");
    }

    // ---- control ----

    private Answer control(HttpExchange exchange, String body) throws IOException {
        Map<String, String> params = form(exchange.getRequestURI().getRawQuery() == null ? "" : exchange.getRequestURI().getRawQuery());
        switch (exchange.getRequestURI().getPath()) {
            case "/control/payment" -> payments.put(params.get("provider") + "/" + params.get("outTradeNo"),
                    new Payment(params.get("state"), Long.parseLong(params.get("amount")),
                            params.getOrDefault("currency", "cny"), params.get("tradeNo"), params.get("account")));
            case "/control/mode" -> modes.put(params.get("provider"), params.get("mode"));
            case "/control/combine" -> combines.put(params.get("combine"), List.of(params.get("orders").split(",")));
            case "/control/refund-answer" -> refundAnswers.put(params.get("provider") + "/" + params.get("key"), body);
            case "/control/reset" -> {
                modes.clear();
                requests.clear();
                wxCertificates.retainAll(List.of(wxCertificates.get(0)));
                alipayCertificates.retainAll(List.of(alipayCertificates.get(0)));
            }
            case "/control/alipay-certificate" -> {
                return newAlipayCertificate();
            }
            case "/control/wx-certificate" -> {
                return newWxCertificate();
            }
            case "/control/requests" -> {
                return new Answer(200, Map.of("Content-Type", "text/plain"), String.join("\n", requests));
            }
            case "/control/refunds" -> {
                return new Answer(200, Map.of("Content-Type", "text/plain"), Integer.toString(refundAnswers.size()));
            }
            default -> {
                return new Answer(404, Map.of(), "");
            }
        }
        return new Answer(200, Map.of(), "");
    }

    private static Map<String, String> form(String body) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                params.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return params;
    }

    private static String yuan(long fen) {
        return BigDecimal.valueOf(fen, 2).toPlainString();
    }

    private static boolean verifies(PublicKey key, String message, String base64Signature) {
        try {
            Signature verifier = Signature.getInstance("SHA256withRSA");
            verifier.initVerify(key);
            verifier.update(message.getBytes(StandardCharsets.UTF_8));
            return verifier.verify(Base64.getDecoder().decode(base64Signature));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }
}
