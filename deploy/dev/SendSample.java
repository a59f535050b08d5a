import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Plays a payment provider against a running service: registers an order for the default merchant, sends one
 * correctly signed payment callback for it, and prints the order once it is PAID.
 *
 * <pre>java deploy/dev/SendSample.java wxpay|alipay|stripe [pay|lost|open|late]</pre>
 *
 * With SANDBOX_URL set (the fake providers of deploy/dev/sandbox.sh), the provider's side of the order is planted there
 * too, so that the service's queries, closes, refunds and statements find it: {@code pay} (the default) pays and sends
 * the callback; {@code lost} pays but sends no callback, and waits for the service's order query to find the payment;
 * {@code open} leaves the order waiting for the buyer at the provider, to be closed from the console or the order API;
 * {@code late} closes the order, then pays it anyway and sends the callback: a payment after close, which the service
 * refunds at the provider.
 * {@code provider-keys} prints the providers' private halves of the demo keys as properties, for the sandbox's fakes.
 *
 * A single-file program (Java 11+ runs it from source), so it needs neither a build nor a dependency. The keys are the
 * demo keys of the dev profile ({@code %dev.paycallback.merchants.default.*} in application.properties); the private
 * halves live only here. Any service whose merchant {@code default} trusts their public halves will do: dev mode
 * ({@code ./mvnw quarkus:dev}), or the packaged service with the trial configuration of docs/run-it-yourself.md.
 * Environment: BASE_URL (default http://localhost:8080); ORDER_TOKEN, a token of the order service
 * ({@code paycallback.auth.order-service.tokens.<name>}), which registers and reads the order (ADMIN_TOKEN is read when
 * ORDER_TOKEN is not set; default: dev mode's dev-only-admin-token).
 */
public final class SendSample {

    // Demo keys generated for this repository; they sign nothing anywhere else. Public halves: application.properties.
    private static final String WXPAY_MCHID = "1900000109";
    private static final String WXPAY_SERIAL = "PUB_KEY_ID_0000000000000000000000000DEMO";
    private static final String WXPAY_API_V3_KEY = "655f4c9d146ad21a4f115d8fab0d6e80";
    private static final String WXPAY_PRIVATE_KEY = """
            MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC8ioem/TBvgivUq+yw31QuSUU1
            G7dhuq/bByxHtDamzhJrzAxGvJezsW5yB8EXGYkSA3ZonqG/hVwdfmeZWeK/QedyO0RvZGQFM09e
            MZjU8pSpkPH2b8SMznKwoA3kg0WuYpA4hI6uW/pljEJtbZ4SUISErZzVATFt4dQIMPg/bxzCDxyv
            nuhIkhX8a8gKxmIQ94Ej4revLocLw8JySe8qNdJV2zzP9JPLAVvKmWyXzdxKMOBtNJ5FDprxwJnc
            CWHZzLsZwFv7nLsCRPJybQPLxUojQ45JX2ks45Sx3UeI/4TIZuRY3zQhQ3TA1V6kByl7RuNmbIBp
            UOTW27vp7ifVAgMBAAECggEAEVkk0Lx4zbXaTxwPsBmojwa+Z7vYZJVvM3XmQOXH5pLNFp6knYii
            Y84mdbcZcQTwPBhV95vrEaqVdoBIS4++Aa+wem4SJrbDzkexnJ7vK17zx2N3JCAWI4emfXKIvLdI
            fNqEXzLxRwFfGaNthFCjDBfdDbFE3kOZFv2By0woN3vbIQMn1hNFnn07xiNM838n9l+1NkXa0/1A
            AkNBBY+6lSp3k3xpZ+Uk/MGvV8o8qUHggnFojEgEh3S5ww80dsfH7gwNTkd/U1bcLO9UZ0l60yFQ
            olCsUHNcjbKRoNXIYbH1aUT58IwJsMepBQjy/0eiWgNOH3Nlw9tuWu1mCw4cgQKBgQDkkIl41cza
            p6z0AqW0mIrZ9hSv8U7ferBjs2uGooGyRL1gtQdyj/Q65h9bKyif9z+Vz7iGxg0t6PGDeScB5g8G
            i9M06NOU3+YBYtCNydXmnQ5JSA7sM/PydjHLP5x8Mdb4PtIUnhYzouUhi2KEIjUdkigd4K1rDPy9
            8cApkMu+gQKBgQDTLCELWef4xe48/dtMamf1x7bM/t4MJwgsQnW0dZH/ntZ6Dpw+z9mXzW5Yu/yT
            on8Q4QSXxjoCZeNeOj/DSM2ibkAF5VM7lYCjyilrCDhFIug3SR+n8o8HOwOfKuTdUfGJVUuHgY9a
            DiFJYiGhMmr5//7aH1Fl3HwiIAK0z6JnVQKBgGhVgitijSySteR9AN87csakCjV2Vaa1/qbEVCUV
            MVcLAdePS2MES1xHh7C6NsUuvBvKwlTjO0jluLlnKGM5fUpjsXnJfivLONcRIFpY9AddUhQpjIZO
            AOGBCqHY27nlllejdYprz36qsSVq1wGyC8T/3sgks4TWXNjn7ewLaLYBAoGAX3Nn8FCQKQOWfx0j
            3fOO0CqYtypQxd9ys0bLG2m1N3zdZ0hpWX7r1ND3msZGEZl2o/OB9vSTzfeuAS6FGckzocMBz2hr
            6dfW0LIVbJrHjICNxEeaNnjOK6+CIJTr5Bog+jmCrVpjqIoQg7IGj21Rq3UKBh/30/oIZghgEMh1
            mQ0CgYEAgBHMb2oMdStsw2xnWcOmkmJ+tUb6ctHwMJRQBM0fcXKd6if0JxaVhHqYSqhKF1lSqi6N
            xTufbP2ukxgNCiyTvuNRDzVVH4lrDVADs0fndjsqSE8KG3Xiu6cmhQ+prxVXiYdsAE1rEqb07oOz
            NEBjMPYuirYb6VktT41r1EAfbm4=
            """;
    private static final String ALIPAY_APP_ID = "2021000000000000";
    private static final String ALIPAY_PRIVATE_KEY = """
            MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDApVYwrNtVgiPnoY7fXl3Zt5gF
            u4QtZhupBkUejuaeulE89TidpAkWhM4p1aEpYUPOa5vr/6QC9CsJJ8o/4aSwWOR3zEQ+TRnEymB4
            0pUmU2XGKUCYT+JsFoZ963JaeUbwDUwNC45rdSMuploqJZSwMV/Q3TGcgAP7zkmAAv18ylWNXLj+
            WjEqlR0rhMB/R1VX1Hy6gwQBELTADnq7h676iRson5IMA9gaFzLPU85ZLZMizjmWVX9MLeJTMxIF
            4NeyueTlYvdehAeCKZueTmVGkP16YJgsy0E1bYkTaRTKKgPMWPI58GzDvxukOJTXS3QsTifTDZk5
            +YIyihwQ4hn3AgMBAAECggEADP2ZOE26ZKO9TsCtj7vJ/Fp4XTqYiS8vglBdQi2aDkNmIwQuPdhy
            kcWBhCoBuiFISe0mZd2mmQRkuoinsh3B1e/InZjKqUuDB1WA9+TLZfrjDAp6w/VEbCGAuZEHnw46
            jbQigrwFbehHkme+q2+T/Tr3HnCBXe+hVSOYqpHeYhcXdVd3JXuHpBBICReRrRzMXjlC0RJGVeem
            yWX0n9c917goGbQMtX4mNKD5xPKorN0kCITdbNbNUptVEnphHGMJ6ot6MUaBZ9EoZvrxY8ufYd3J
            MNUzVcVLHFiYhVltG0AiiXL7h5jwH6nJKtn15CSUgIO9cLv9xFHT8LdhKe2tkQKBgQDtZwDiMRbZ
            ke7SAw1phXJrQVPAdYkocsHfuHWUDn257f2xu0sqm9iRXlY20mqmqwmPYUOQkaOkMc+sEvPqAE8y
            LjhrpFwBAZ0bXQ/x/JTXyw5SFAWiNp/0OAJ68YsiVX3Dw92kfyUSuJGH/kGPx4ufX+/FYX103tMQ
            nOQ80Vw9PQKBgQDPvML/pMCEEcK/3CQSsrVHD1dkbrKaUcFfTJqFkB8jaZNqjhuchqwfwt5Po62M
            4zZ1+EANmOXxQ/XiWDjE/7qaV6qi9OivU0rGwSfaSVirK7wcXF6BAhDVuB2TVGH0z5XdJ/HX6Rvs
            6ZXf/4hMCSgtydgwXfB3IqzbyqvnSD2PQwKBgEAhmzN/X1TW/1TsTis7SXV/6EgNeEfc+FKfWePt
            Jjmb+PSSS/PutcpPWarlnLn5alO5Sq87KKGqcxdg51NHUh2ULtmlRNVgwjgqI6yTNwI0cGHr1rnD
            V+J5XvInXhagUaEYwD83uaQdB/Nc1AkrNqSPHg6MD4AK0amjOGTVib1hAoGBAM5WGH2h4BKOLZky
            CKaF2ObvBwfbqAz93YtR5D17zGH5MJJq+mP7pCWcAgKqeexxlpuQa9bVoreEoEslA6Ywt+Er6HIZ
            vrC+k4xdOL9pkOfb9elZmgiby6rsSHwZGX73XUygq2egw7sKvHIUNwYHJmBslw5bkEhVKcraQOrl
            5zdPAoGAatqnvhsr8F9j7piGMgdJ1bfCr2MYuqZXr+K0tpctyI8++6sk6/TVCKGmN4I9hWV9/RMP
            P9VsPXKxbfpNCd68bxTpQC5qyCIUOf33vREH2Vaegl7Cfw+Ix/6aVvjO+6EuV2JEonRzkB+PKsM8
            fxm97Xft4LaCXt9mY1JutiHVUTw=
            """;
    private static final String STRIPE_WEBHOOK_SECRET = "whsec_WF2wr8pAKSWlVCzM3LChnLSoJxfpU8Wn";

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final SecureRandom RANDOM = new SecureRandom();

    private record Sample(String channel, String amount, String currency, String contentType, Map<String, String> headers,
                          String body, ProviderSide provider) {
    }

    /** The order as the provider keeps it, in the provider's words: what the sandbox's fakes answer queries with. */
    private record ProviderSide(String tradeNo, long amountMinor, String currency, String paidState, String openState) {
    }

    private enum Scenario {
        /** Paid, and the provider's callback sent. */
        PAY,
        /** Paid at the provider, its callback lost: the service's order query finds it. */
        LOST,
        /** Waiting for the buyer at the provider: an order to close. */
        OPEN,
        /** Closed here and at the provider, then paid anyway: the service refunds the payment. */
        LATE
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("provider-keys")) {
            printProviderKeys();
            return;
        }
        if (args.length < 1 || args.length > 2 || !args[0].matches("wxpay|alipay|stripe")
                || (args.length == 2 && !args[1].matches("pay|lost|open|late"))) {
            System.err.println("usage: java deploy/dev/SendSample.java wxpay|alipay|stripe [pay|lost|open|late]");
            System.exit(2);
        }
        Scenario scenario = args.length == 2 ? Scenario.valueOf(args[1].toUpperCase(Locale.ROOT)) : Scenario.PAY;
        String base = env("BASE_URL", "http://localhost:8080").replaceAll("/$", "");
        String token = env("ORDER_TOKEN", env("ADMIN_TOKEN", "dev-only-admin-token"));
        String sandbox = env("SANDBOX_URL", "").replaceAll("/$", "");
        if (scenario != Scenario.PAY && sandbox.isEmpty()) {
            fail(args[1] + " needs the provider's side: set SANDBOX_URL to the fake providers of deploy/dev/sandbox.sh");
        }
        String outTradeNo = "DEMO-" + args[0] + "-" + Long.toString(System.currentTimeMillis(), 36);
        Sample sample = switch (args[0]) {
            case "wxpay" -> wxpay(outTradeNo, Instant.now());
            case "alipay" -> alipay(outTradeNo);
            default -> stripe(outTradeNo, Instant.now());
        };

        HttpResponse<String> created = send(HttpRequest.newBuilder(URI.create(base + "/internal/orders"))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("""
                        {"merchantId":"default","outTradeNo":"%s","amount":"%s","currency":"%s"}"""
                        .formatted(outTradeNo, sample.amount(), sample.currency()))));
        System.out.println("order     " + created.statusCode() + " " + created.body());
        if (created.statusCode() == 401 || created.statusCode() == 403) {
            fail("could not register the order: set ORDER_TOKEN to a token of the order service"
                    + " (paycallback.auth.order-service.tokens.<name>)");
        }
        if (created.statusCode() != 201) {
            fail("could not register the order at " + base);
        }
        if (!sandbox.isEmpty()) {
            ProviderSide side = sample.provider();
            boolean unpaid = scenario == Scenario.OPEN || scenario == Scenario.LATE;
            plant(sandbox, sample, outTradeNo, unpaid ? side.openState() : side.paidState());
        }
        HttpRequest read = HttpRequest.newBuilder(URI.create(base + "/internal/orders/" + outTradeNo + "?merchantId=default"))
                .header("Authorization", "Bearer " + token).GET().build();
        if (scenario == Scenario.OPEN) {
            ProviderSide side = sample.provider();
            System.out.println("close it: curl -s -X POST -H 'Authorization: Bearer " + token + "' " + base
                    + "/internal/orders/" + outTradeNo + "/close");
            System.out.println("or let the buyer pay at the provider first, and the close finds the payment:");
            System.out.println("          curl -s -X POST '" + sandbox + "/control/payment?provider=" + sample.channel()
                    + "&outTradeNo=" + outTradeNo + "&state=" + side.paidState() + "&amount=" + side.amountMinor()
                    + "&currency=" + side.currency() + "&tradeNo=" + side.tradeNo() + "'");
            return;
        }
        if (scenario == Scenario.LATE) {
            HttpResponse<String> closed = send(HttpRequest.newBuilder(URI.create(base + "/internal/orders/" + outTradeNo + "/close"))
                    .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.noBody()));
            System.out.println("close     " + closed.statusCode() + " " + closed.body());
            if (!closed.body().contains("\"status\":\"CLOSED\"")) {
                fail("order " + outTradeNo + " did not close");
            }
            plant(sandbox, sample, outTradeNo, sample.provider().paidState());
        }
        if (scenario == Scenario.LOST) {
            // No callback: the order query asks the provider once the order has been PENDING paycallback.reconcile.after.
            System.out.println("no callback: waiting for the service's order query (up to 3 min)");
            awaitPaid(read, outTradeNo, 900);
            return;
        }

        HttpRequest.Builder callback = HttpRequest.newBuilder(URI.create(base + "/pay/callback/" + sample.channel()))
                .header("Content-Type", sample.contentType())
                .POST(HttpRequest.BodyPublishers.ofString(sample.body(), StandardCharsets.UTF_8));
        sample.headers().forEach(callback::header);
        HttpResponse<String> answer = send(callback);
        System.out.println("callback  " + answer.statusCode() + " " + answer.body());
        if (answer.statusCode() == 404) {
            fail("the callback was not acknowledged: the service has no " + sample.channel()
                    + " keys for the merchant default");
        }
        if (answer.statusCode() == 400 || answer.statusCode() == 401) {
            fail("the callback was refused: does the merchant default trust the demo keys"
                    + " (the %dev. merchant settings of application.properties)?");
        }
        if (answer.statusCode() != 200) {
            fail("the callback was not acknowledged");
        }

        if (scenario == Scenario.LATE) {
            // Paid after close: the order stays CLOSED, the transition decides a refund, submitted to the provider.
            Thread.sleep(2000);
            System.out.println("order now " + send(read).body());
            System.out.println("paid after close: the service refunds it; see the order's story in the console");
            return;
        }
        // The transition runs on a worker right after the acknowledgement.
        awaitPaid(read, outTradeNo, 50);
    }

    /** The order as the sandbox's fake provider answers it from now on. */
    private static void plant(String sandbox, Sample sample, String outTradeNo, String state) throws Exception {
        ProviderSide side = sample.provider();
        HttpResponse<String> planted = send(HttpRequest.newBuilder(URI.create(sandbox + "/control/payment?provider="
                + sample.channel() + "&outTradeNo=" + outTradeNo + "&state=" + state + "&amount=" + side.amountMinor()
                + "&currency=" + side.currency() + "&tradeNo=" + side.tradeNo()))
                .POST(HttpRequest.BodyPublishers.noBody()));
        System.out.println("provider  " + planted.statusCode() + " " + sample.channel() + " has " + outTradeNo + " " + state);
    }

    private static void awaitPaid(HttpRequest read, String outTradeNo, int polls) throws Exception {
        for (int attempt = 0; attempt < polls; attempt++) {
            HttpResponse<String> order = send(read);
            if (order.body().contains("\"status\":\"PAID\"")) {
                System.out.println("order now " + order.body());
                return;
            }
            Thread.sleep(200);
        }
        fail("order " + outTradeNo + " is not PAID after " + polls / 5 + " s: see the service's log");
    }

    /** The providers' halves of the demo keys, one property a line, for the sandbox's fakes (io.paycallback.testsupport.Sandbox). */
    private static void printProviderKeys() {
        System.out.println("wxpay.mchid=" + WXPAY_MCHID);
        System.out.println("wxpay.serial=" + WXPAY_SERIAL);
        System.out.println("wxpay.api-v3-key=" + WXPAY_API_V3_KEY);
        System.out.println("wxpay.private-key=" + WXPAY_PRIVATE_KEY.replaceAll("\\s", ""));
        System.out.println("alipay.app-id=" + ALIPAY_APP_ID);
        System.out.println("alipay.private-key=" + ALIPAY_PRIVATE_KEY.replaceAll("\\s", ""));
        System.out.println("stripe.webhook-secret=" + STRIPE_WEBHOOK_SECRET);
    }

    /** WeChat Pay API v3: the transaction AES-256-GCM-sealed with the APIv3 key, the notice signed SHA256withRSA. */
    private static Sample wxpay(String outTradeNo, Instant now) throws GeneralSecurityException {
        String plaintext = """
                {"mchid":"%s","appid":"wxd678efh567hg6787","out_trade_no":"%s","transaction_id":"4200000%s",\
                "trade_type":"NATIVE","trade_state":"SUCCESS","trade_state_desc":"支付成功","bank_type":"OTHERS",\
                "success_time":"%s","payer":{"openid":"demo-openid"},\
                "amount":{"total":1,"payer_total":1,"currency":"CNY","payer_currency":"CNY"}}"""
                .formatted(WXPAY_MCHID, outTradeNo, outTradeNo, now.truncatedTo(ChronoUnit.SECONDS));
        String resourceNonce = nonce(12);
        Cipher aes = Cipher.getInstance("AES/GCM/NoPadding");
        aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(WXPAY_API_V3_KEY.getBytes(StandardCharsets.UTF_8), "AES"),
                new GCMParameterSpec(128, resourceNonce.getBytes(StandardCharsets.UTF_8)));
        aes.updateAAD("transaction".getBytes(StandardCharsets.UTF_8));
        String ciphertext = Base64.getEncoder().encodeToString(aes.doFinal(plaintext.getBytes(StandardCharsets.UTF_8)));
        String body = """
                {"id":"EV-%s","create_time":"%s","resource_type":"encrypt-resource","event_type":"TRANSACTION.SUCCESS",\
                "summary":"支付成功","resource":{"original_type":"transaction","algorithm":"AEAD_AES_256_GCM",\
                "ciphertext":"%s","associated_data":"transaction","nonce":"%s"}}"""
                .formatted(outTradeNo, now.truncatedTo(ChronoUnit.SECONDS), ciphertext, resourceNonce);
        String timestamp = Long.toString(now.getEpochSecond());
        String headerNonce = nonce(32);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Wechatpay-Timestamp", timestamp);
        headers.put("Wechatpay-Nonce", headerNonce);
        headers.put("Wechatpay-Serial", WXPAY_SERIAL);
        headers.put("Wechatpay-Signature-Type", "WECHATPAY2-SHA256-RSA2048");
        headers.put("Wechatpay-Signature", rsaSha256(WXPAY_PRIVATE_KEY, timestamp + "\n" + headerNonce + "\n" + body + "\n"));
        return new Sample("wxpay", "0.01", "CNY", "application/json", headers, body,
                new ProviderSide("4200000" + outTradeNo, 1, "cny", "SUCCESS", "NOTPAY"));
    }

    /** Alipay: RSA2 over the sorted k=v pairs other than sign and sign_type, posted as a form. */
    private static Sample alipay(String outTradeNo) throws GeneralSecurityException {
        Map<String, String> params = new TreeMap<>();
        params.put("notify_time", "2026-12-02 10:35:00");
        params.put("notify_type", "trade_status_sync");
        params.put("notify_id", nonce(32));
        params.put("app_id", ALIPAY_APP_ID);
        params.put("charset", "utf-8");
        params.put("version", "1.0");
        params.put("trade_no", "2026" + outTradeNo);
        params.put("out_trade_no", outTradeNo);
        params.put("trade_status", "TRADE_SUCCESS");
        params.put("total_amount", "88.00");
        params.put("receipt_amount", "88.00");
        params.put("subject", "演示商品");
        String signed = params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("&"));
        params.put("sign_type", "RSA2");
        params.put("sign", rsaSha256(ALIPAY_PRIVATE_KEY, signed));
        String body = params.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return new Sample("alipay", "88.00", "CNY", "application/x-www-form-urlencoded; charset=utf-8", Map.of(), body,
                new ProviderSide("2026" + outTradeNo, 8800, "cny", "TRADE_SUCCESS", "WAIT_BUYER_PAY"));
    }

    /** Stripe: Stripe-Signature t=...,v1=HMAC-SHA256 of "t.body" keyed with the whole whsec_ string. */
    private static Sample stripe(String outTradeNo, Instant now) throws GeneralSecurityException {
        String paymentIntent = nonce(24);
        String body = """
                {"id":"evt_%s","object":"event","api_version":"2024-06-20","created":%d,"type":"payment_intent.succeeded",\
                "data":{"object":{"id":"pi_%s","object":"payment_intent","amount":500,"amount_received":500,\
                "currency":"usd","status":"succeeded","metadata":{"out_trade_no":"%s"}}}}"""
                .formatted(nonce(24), now.getEpochSecond(), paymentIntent, outTradeNo);
        Mac hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(STRIPE_WEBHOOK_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String v1 = HexFormat.of().formatHex(hmac.doFinal((now.getEpochSecond() + "." + body).getBytes(StandardCharsets.UTF_8)));
        return new Sample("stripe", "5.00", "USD", "application/json",
                Map.of("Stripe-Signature", "t=" + now.getEpochSecond() + ",v1=" + v1), body,
                new ProviderSide("pi_" + paymentIntent, 500, "usd", "succeeded", "requires_payment_method"));
    }

    private static String rsaSha256(String pkcs8Base64, String message) throws GeneralSecurityException {
        PrivateKey key = KeyFactory.getInstance("RSA")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(pkcs8Base64)));
        Signature signature = Signature.getInstance("SHA256withRSA");
        signature.initSign(key);
        signature.update(message.getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(signature.sign());
    }

    private static String nonce(int length) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return out.toString();
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return send(request.build());
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            fail("nothing answers at " + request.uri().resolve("/") + ": is the service running there (BASE_URL)?");
            throw e;
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static void fail(String message) {
        System.err.println("send-sample: " + message);
        System.exit(1);
    }
}
