package io.paycallback.ops;

import io.paycallback.provider.WxPayCertificates;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class CertificateConcernsTest {

    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");

    @Test
    void aHealthySetWithYearsLeftWantsNobody() {
        assertThat(OperationsOverview.certificates(new WxPayCertificates.HeldSet("1900000109", false,
                Optional.of(NOW.plus(Duration.ofDays(900)))), NOW)).isEmpty();
        assertThat(OperationsOverview.certificates(new WxPayCertificates.HeldSet("1900000109", false,
                Optional.empty()), NOW)).as("before the first download").isEmpty();
    }

    @Test
    void aFailedDownloadAndALastCertificateExpiringWithinAWeekAreEachNamed() {
        Instant expiry = NOW.plus(Duration.ofDays(6));

        var concerns = OperationsOverview.certificates(new WxPayCertificates.HeldSet("1900000109", true,
                Optional.of(expiry)), NOW);

        assertThat(concerns).extracting(Attention::concern).containsExactly(Attention.Concern.CERTIFICATES_FAILING,
                Attention.Concern.CERTIFICATES_EXPIRING);
        assertThat(concerns).allSatisfy(concern -> assertThat(concern.subject()).isEqualTo("1900000109"));
        assertThat(concerns.get(1).said()).endsWith("expires at 2026-12-13T12:00:00Z");
    }
}
