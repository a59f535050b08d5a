package io.paycallback.delivery;

import com.standardwebhooks.Webhook;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WebhookSignerTest {

    /** The Standard Webhooks specification's reference vector (and its libraries' tests). */
    private static final String SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    private static final long SPEC_TIMESTAMP = 1614265330;
    private static final String SPEC_BODY = "{\"test\": 2432232314}";
    private static final String SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    private static final String OTHER_SECRET = secret(32, 1);

    @Test
    void theSpecificationsVectorSignsToItsSignature() {
        SigningSecret secret = SigningSecret.parse(SPEC_SECRET, "key");
        assertThat(secret.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(SPEC_SIGNATURE);
    }

    @Test
    void theWebhookIdIsStableFreeOfDotsAndDerivedFromTheIdempotencyKey() {
        String id = WebhookSigner.webhookId("pay:42:order.paid:warehouse");
        assertThat(id).isEqualTo(WebhookSigner.webhookId("pay:42:order.paid:warehouse"))
                .startsWith("msg_").doesNotContain(".").doesNotContain("=").matches("msg_[A-Za-z0-9_-]{43}");
        assertThat(WebhookSigner.webhookId("pay:42:order.paid:points")).isNotEqualTo(id);
    }

    @Test
    void theHeadersCarryTheTrysTimeAndASignatureOverExactlyTheBody() {
        WebhookSigner signer = new WebhookSigner(SigningSecret.parse(SPEC_SECRET, "key"), Optional.empty(), Instant.MIN);
        byte[] body = "{\"id\":\"pay:42:order.paid\",\"amount\":\"8.80\"}".getBytes(StandardCharsets.UTF_8);
        Instant now = Instant.parse("2026-12-05T10:00:00.750Z");

        WebhookSigner.Headers headers = signer.sign("pay:42:order.paid:warehouse", body, now);

        assertThat(headers.id()).isEqualTo(WebhookSigner.webhookId("pay:42:order.paid:warehouse"));
        assertThat(headers.timestamp()).isEqualTo(now.getEpochSecond());
        assertThat(headers.signature()).isEqualTo(SigningSecret.parse(SPEC_SECRET, "key").sign(headers.id(), headers.timestamp(), body));
        WebhookSigner.Headers later = signer.sign("pay:42:order.paid:warehouse", body, now.plusSeconds(90));
        assertThat(later.id()).isEqualTo(headers.id());
        assertThat(later.timestamp()).isEqualTo(headers.timestamp() + 90);
        assertThat(later.signature()).isNotEqualTo(headers.signature());
    }

    @Test
    void whileTheSecretRotatesBothSignaturesAreSentSpaceSeparatedUntilThePreviousExpires() {
        Instant expires = Instant.parse("2026-12-31T00:00:00Z");
        WebhookSigner signer = new WebhookSigner(SigningSecret.parse(OTHER_SECRET, "key"),
                Optional.of(SigningSecret.parse(SPEC_SECRET, "previous")), expires);
        byte[] body = SPEC_BODY.getBytes(StandardCharsets.UTF_8);

        String before = signer.sign("k", body, expires.minusSeconds(1)).signature();
        assertThat(before.split(" ")).hasSize(2).allMatch(signature -> signature.startsWith("v1,"));
        assertThat(signer.previousUntil(expires.minusSeconds(1))).contains(expires);

        assertThat(signer.sign("k", body, expires).signature().split(" ")).hasSize(1);
        assertThat(signer.previousUntil(expires)).isEmpty();
    }

    @Test
    void theReferenceLibraryVerifiesWhatIsSentWithEitherSecret() throws Exception {
        Instant now = Instant.now();
        WebhookSigner signer = new WebhookSigner(SigningSecret.parse(OTHER_SECRET, "key"),
                Optional.of(SigningSecret.parse(SPEC_SECRET, "previous")), now.plusSeconds(3600));
        String payload = "{\"id\":\"pay:7:order.paid\",\"type\":\"order.paid\",\"reason\":\"naïve ünïcödé\"}";
        WebhookSigner.Headers headers = signer.sign("pay:7:order.paid:warehouse", payload.getBytes(StandardCharsets.UTF_8), now);
        Map<String, List<String>> sent = Map.of(WebhookSigner.ID, List.of(headers.id()),
                WebhookSigner.TIMESTAMP, List.of(Long.toString(headers.timestamp())),
                WebhookSigner.SIGNATURE, List.of(headers.signature()));

        assertThatCode(() -> new Webhook(OTHER_SECRET).verify(payload, sent)).doesNotThrowAnyException();
        assertThatCode(() -> new Webhook(SPEC_SECRET).verify(payload, sent)).doesNotThrowAnyException();
        String third = secret(24, 2);
        assertThatThrownBy(() -> new Webhook(third).verify(payload, sent)).isInstanceOf(Exception.class);
        assertThatThrownBy(() -> new Webhook(OTHER_SECRET).verify(payload + " ", sent)).isInstanceOf(Exception.class);
        assertThat(new Webhook(SPEC_SECRET).sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY)).isEqualTo(SPEC_SIGNATURE);
    }

    @Test
    void aSecretThatIsNotWhsecBase64OfTwentyFourToSixtyFourBytesIsRefusedNamingOnlyItsKey() {
        String key = "paycallback.downstream.destinations.warehouse.signing-secret";
        String tooShort = secret(23, 3);
        String tooLong = secret(65, 4);
        for (String bad : List.of("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!", tooShort, tooLong, "whsec_", "")) {
            assertThatThrownBy(() -> SigningSecret.parse(bad, key)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(key).satisfies(e -> {
                        if (bad.length() > 8) {
                            assertThat(e.getMessage()).doesNotContain(bad.substring(6));
                        }
                    });
        }
        assertThatCode(() -> SigningSecret.parse(secret(64, 5), key))
                .doesNotThrowAnyException();
        assertThat(SigningSecret.parse(SPEC_SECRET, key).toString()).doesNotContain("MfKQ9r8");
    }

    /** A secret of {@code length} bytes that no other secret of these tests shares (HMAC pads short keys with zeros). */
    static String secret(int length, int seed) {
        byte[] key = new byte[length];
        new java.util.Random(seed).nextBytes(key);
        return "whsec_" + java.util.Base64.getEncoder().encodeToString(key);
    }
}
