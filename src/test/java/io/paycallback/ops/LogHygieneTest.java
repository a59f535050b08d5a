package io.paycallback.ops;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A burst of valid, forged, unparseable and unprocessable callbacks, then a read of everything the application logged:
 * no key, webhook secret, signature or fragment of a provider's body may appear.
 */
@QuarkusTest
class LogHygieneTest {

    @Inject
    Pool pool;

    private static final Path LOG = Path.of("target/quarkus-test.log");

    @Test
    void noSecretSignatureOrBodyFragmentReachesTheLog() throws Exception {
        ProviderKeys keys = ProviderKeys.fromConfig();
        ProviderSigner signer = new ProviderSigner(keys);
        List<String> orders = new ArrayList<>();
        List<String> forbidden = new ArrayList<>(List.of(keys.apiV3Key(), keys.stripeSecret(),
                keys.wxPublicDer().substring(60, 100), keys.alipayPublicDer().substring(60, 100),
                Base64.getEncoder().encodeToString(keys.wxPrivate().getEncoded()).substring(60, 100),
                "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", "159****5620", "测试商品", "招商银行信用卡0403"));

        for (int i = 0; i < 10; i++) {
            String outTradeNo = "LOG" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            orders.add(outTradeNo);
            if (i % 2 == 0) {
                Api.createOrder(outTradeNo, "1.00", "CNY").then().statusCode(201);
            }
            SignedCallback wx = signer.wxPayment(outTradeNo, "42000" + i + UUID.randomUUID().toString().substring(0, 12),
                    i % 3 == 0 ? 1 : 100, "SUCCESS", Instant.now());
            forbidden.add(wx.headers().get("Wechatpay-Signature"));
            forbidden.add(ciphertextFragment(wx));
            Send.payment(wx);

            Map<String, String> forged = new HashMap<>(wx.headers());
            forged.put("Wechatpay-Signature", Base64.getEncoder().encodeToString(("forged-" + i).getBytes(StandardCharsets.UTF_8)));
            forbidden.add(forged.get("Wechatpay-Signature"));
            Send.payment(new SignedCallback("wxpay", forged, wx.contentType(), wx.body())).then().statusCode(401);

            SignedCallback alipay = signer.alipayPayment(outTradeNo, "2026LOG" + i + UUID.randomUUID().toString().substring(0, 8),
                    new BigDecimal("1.00"), "TRADE_SUCCESS");
            String sign = alipay.bodyAsUtf8().replaceAll(".*[?&]?sign=([^&]+).*", "$1");
            forbidden.add(java.net.URLDecoder.decode(sign, StandardCharsets.UTF_8).substring(0, 40));
            Send.payment(alipay);

            SignedCallback stripe = signer.stripePayment(outTradeNo, "pi_LOG" + i + UUID.randomUUID().toString().substring(0, 8),
                    100, "cny", Instant.now());
            forbidden.add(stripe.headers().get("Stripe-Signature").substring(stripe.headers().get("Stripe-Signature").indexOf("v1=") + 3));
            Send.payment(stripe);

            String secretNote = "SECRET-BODY-MARKER-" + i;
            forbidden.add(secretNote);
            Send.payment(signer.stripeSigned("{\"note\":\"" + secretNote + "\",\"data\":", Instant.now())).then().statusCode(400);
            Send.payment(signer.stripeSigned("{\"note\":\"" + secretNote + "\"}", Instant.now().minusSeconds(3600))).then().statusCode(400);
        }
        // Every stored callback has had its first try, and logged what came of it.
        Db db = new Db(pool);
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.stream().allMatch(order -> db.count(
                "SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no = ? AND status = 0 AND retry_count = 0", order) == 0));

        List<String> lines = Files.readAllLines(LOG, StandardCharsets.UTF_8);
        assertThat(lines).as("the test profile writes its log to " + LOG).isNotEmpty();
        assertThat(String.join("\n", lines)).contains("Refused wxpay").contains("Quarantined stripe");
        for (String line : lines) {
            for (String secret : forbidden) {
                assertThat(line).as("a log line holds a secret, signature or body fragment").doesNotContain(secret);
            }
        }
    }

    private static String ciphertextFragment(SignedCallback wx) {
        String body = wx.bodyAsUtf8();
        int at = body.indexOf("\"ciphertext\":\"") + 14;
        return body.substring(at, at + 24);
    }
}
