package io.paycallback.provider;

import io.paycallback.channel.TestKeys;
import io.paycallback.channel.wxpay.CertificateAnswer.PlatformCertificate;
import io.paycallback.testsupport.SettableClock;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** When a merchant's platform certificates are downloaded, and what a failed download leaves held. */
class RefreshedCertificatesTest {

    private static final Instant START = Instant.parse("2026-12-07T12:00:00Z");
    private static final KeyPair KEY = TestKeys.rsa();
    private static final RefreshedCertificates.Timing TIMING = new RefreshedCertificates.Timing(Duration.ofHours(12),
            Duration.ofMinutes(1), Duration.ofMinutes(5));

    private final SettableClock clock = SettableClock.at(START);
    private final AtomicInteger downloads = new AtomicInteger();
    private final List<String> outcomes = new ArrayList<>();
    /** What the next download answers: the serials listed, or a failure when null. */
    private volatile List<String> answer = List.of("S1");
    /** A download the test completes itself, when set. */
    private volatile CompletableFuture<List<PlatformCertificate>> pending;

    private final RefreshedCertificates set = new RefreshedCertificates("1900000109", this::download, clock, TIMING,
            new RefreshedCertificates.Outcome() {
                @Override
                public void downloaded(RefreshedCertificates set, List<PlatformCertificate> certificates) {
                    outcomes.add("downloaded " + certificates.size());
                }

                @Override
                public void failed(RefreshedCertificates set, Throwable failure) {
                    outcomes.add("failed");
                }
            });

    private CompletionStage<List<PlatformCertificate>> download() {
        downloads.incrementAndGet();
        if (pending != null) {
            return pending;
        }
        List<String> serials = answer;
        return serials == null ? CompletableFuture.failedFuture(new ProviderException("wxpay", new ProviderFailure.Timeout()))
                : CompletableFuture.completedFuture(serials.stream()
                .map(serial -> new PlatformCertificate(serial, KEY.getPublic(), START.plus(Duration.ofDays(365)))).toList());
    }

    @Test
    void theFirstDownloadIsDueAtOnceThenEveryRefreshInterval() {
        set.refreshIfDue();
        assertThat(set.serials()).containsExactly("S1");

        clock.advance(Duration.ofHours(11));
        set.refreshIfDue();
        assertThat(downloads).hasValue(1);

        clock.advance(Duration.ofHours(1));
        answer = List.of("S1", "S2");
        set.refreshIfDue();
        assertThat(downloads).hasValue(2);
        assertThat(set.serials()).containsExactlyInAnyOrder("S1", "S2");
    }

    @Test
    void anUnknownSerialDownloadsOnceAndIsLearned() {
        set.refreshIfDue();
        clock.advance(Duration.ofMinutes(2));
        answer = List.of("S1", "S2");

        assertThat(set.learn("S2").toCompletableFuture().join()).isTrue();
        assertThat(set.learn("S2").toCompletableFuture().join()).isTrue();

        assertThat(downloads).hasValue(2);
        assertThat(set.key("S2")).contains(KEY.getPublic());
    }

    @Test
    void unknownSerialsDownloadAtMostOncePerLeastInterval() {
        set.refreshIfDue();
        clock.advance(Duration.ofMinutes(2));

        assertThat(set.learn("S9").toCompletableFuture().join()).isFalse();
        clock.advance(Duration.ofSeconds(30));
        assertThat(set.learn("S9").toCompletableFuture().join()).isFalse();
        assertThat(set.learn("S8").toCompletableFuture().join()).isFalse();
        assertThat(downloads).hasValue(2);

        clock.advance(Duration.ofSeconds(31));
        answer = List.of("S1", "S9");
        assertThat(set.learn("S9").toCompletableFuture().join()).isTrue();
        assertThat(downloads).hasValue(3);
    }

    @Test
    void noticesArrivingDuringADownloadWaitForThatOne() {
        pending = new CompletableFuture<>();
        CompletableFuture<Boolean> first = set.learn("S1").toCompletableFuture();
        CompletableFuture<Boolean> second = set.learn("S1").toCompletableFuture();
        assertThat(first).isNotDone();

        pending.complete(List.of(new PlatformCertificate("S1", KEY.getPublic(), START.plus(Duration.ofDays(365)))));

        assertThat(first.join()).isTrue();
        assertThat(second.join()).isTrue();
        assertThat(downloads).hasValue(1);
    }

    @Test
    void aFailedDownloadKeepsTheSetHeldAndIsTriedAgainAfterTheRetryInterval() {
        set.refreshIfDue();
        clock.advance(Duration.ofHours(12));
        answer = null;

        set.refreshIfDue();

        assertThat(set.failing()).isTrue();
        assertThat(set.serials()).containsExactly("S1");
        assertThat(outcomes).containsExactly("downloaded 1", "failed");
        clock.advance(Duration.ofMinutes(4));
        set.refreshIfDue();
        assertThat(downloads).hasValue(2);

        clock.advance(Duration.ofMinutes(1));
        answer = List.of("S2");
        set.refreshIfDue();
        assertThat(downloads).hasValue(3);
        assertThat(set.failing()).isFalse();
        assertThat(set.serials()).containsExactly("S2");
    }
}
