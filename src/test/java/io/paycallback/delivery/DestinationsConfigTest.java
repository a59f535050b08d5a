package io.paycallback.delivery;

import io.paycallback.testsupport.ConfigStub;
import io.paycallback.outbox.OutboxConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the start refuses, naming the key and never a secret, and what it accepts with a warning. */
class DestinationsConfigTest {

    private static final String SECRET = WebhookSignerTest.secret(32, 21);
    private static final String PREVIOUS = WebhookSignerTest.secret(32, 22);

    @Test
    void aMalformedSigningSecretStopsTheStartNamingItsKeyOnly() {
        String bad = "whsec_c2hvcnQ=";
        assertThatThrownBy(() -> destinations(destination(Optional.of(bad), Optional.empty(), Optional.empty())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paycallback.downstream.destinations.warehouse.signing-secret")
                .hasMessageNotContaining("c2hvcnQ");
    }

    @Test
    void aPreviousSecretNeedsItsExpiryAndACurrentSecret() {
        assertThatThrownBy(() -> destinations(destination(Optional.of(SECRET), Optional.of(PREVIOUS), Optional.empty())))
                .hasMessageContaining("paycallback.downstream.destinations.warehouse.previous-signing-secret-expires-at");
        assertThatThrownBy(() -> destinations(destination(Optional.of(SECRET), Optional.of(PREVIOUS), Optional.of("tomorrow"))))
                .hasMessageContaining("previous-signing-secret-expires-at").hasMessageNotContaining(PREVIOUS.substring(6));
        assertThatThrownBy(() -> destinations(destination(Optional.empty(), Optional.of(PREVIOUS), Optional.of("2030-01-01T00:00:00Z"))))
                .hasMessageContaining("previous-signing-secret is set without");
        assertThatThrownBy(() -> destinations(destination(Optional.of(SECRET), Optional.of("whsec_x"), Optional.of("2030-01-01T00:00:00Z"))))
                .hasMessageContaining("paycallback.downstream.destinations.warehouse.previous-signing-secret");
    }

    @Test
    void aDestinationWithoutASecretIsUnsignedAndOneWithARotationSignsWithBothUntilItsExpiry() {
        Destinations unsigned = destinations(destination(Optional.empty(), Optional.empty(), Optional.empty()));
        assertThat(unsigned.get("warehouse").orElseThrow().signer()).isEmpty();

        Destinations rotating = destinations(destination(Optional.of(SECRET), Optional.of(PREVIOUS), Optional.of("2030-01-01T00:00:00Z")));
        WebhookSigner signer = rotating.get("warehouse").orElseThrow().signer().orElseThrow();
        assertThat(signer.previousUntil(Instant.parse("2029-12-31T23:59:59Z"))).contains(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(signer.sign("k", new byte[0], Instant.parse("2029-12-31T23:59:59Z")).signature().split(" ")).hasSize(2);
        assertThat(rotating.schedule().backoff()).hasSize(7);
        assertThat(rotating.schedule().jitter()).isEqualTo(0.2);
    }

    private static OutboxConfig.DestinationSettings destination(Optional<String> secret, Optional<String> previous,
                                                                       Optional<String> expiresAt) {
        Map<String, Object> answers = new HashMap<>();
        answers.put("url", Optional.of("http://localhost/warehouse"));
        answers.put("kafka", Optional.empty());
        answers.put("events", List.of("order.paid"));
        answers.put("timeout", Duration.ofSeconds(5));
        answers.put("concurrency", 8);
        answers.put("signingSecret", secret);
        answers.put("previousSigningSecret", previous);
        answers.put("previousSigningSecretExpiresAt", expiresAt);
        answers.put("rateLimit", OptionalDouble.empty());
        return ConfigStub.of(OutboxConfig.DestinationSettings.class, answers);
    }

    private static Destinations destinations(OutboxConfig.DestinationSettings warehouse) {
        DeliveryConfig.Schedule schedule = ConfigStub.of(DeliveryConfig.Schedule.class, Map.of(
                "backoff", List.of(Duration.ofSeconds(5), Duration.ofMinutes(5), Duration.ofMinutes(30), Duration.ofHours(2),
                        Duration.ofHours(5), Duration.ofHours(10), Duration.ofHours(10)),
                "jitter", 0.2, "retryAfterCap", Duration.ofHours(1)));
        DeliveryConfig.Breaker breaker = ConfigStub.of(DeliveryConfig.Breaker.class, Map.of(
                "minTries", 10, "failureRatio", 0.7, "window", Duration.ofMinutes(5),
                "probeInterval", Duration.ofSeconds(30), "disableAfter", Duration.ofDays(3)));
        OutboxConfig outbox = ConfigStub.of(OutboxConfig.class, Map.of("destinations", Map.of("warehouse", warehouse)));
        return new Destinations(outbox, ConfigStub.of(DeliveryConfig.class, Map.of("schedule", schedule, "breaker", breaker)));
    }

}
