package io.paycallback.provider;

import io.paycallback.channel.wxpay.CertificateAnswer.PlatformCertificate;
import io.paycallback.channel.wxpay.PlatformCertificates;

import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * One merchant's (or partner's) downloaded platform certificates: the set held now, replaced whole by each download
 * that succeeds, so a callback reads one set or the next; a download that fails keeps the set held. Downloads come
 * at start, every refresh interval, sooner after a failure, and when a notice names a serial the set lacks, which
 * downloads at most once per minimum interval, however many such notices arrive.
 */
final class RefreshedCertificates implements PlatformCertificates {

    /** How a download ended, for the metrics and the log. */
    interface Outcome {
        void downloaded(RefreshedCertificates set, List<PlatformCertificate> certificates);

        void failed(RefreshedCertificates set, Throwable failure);
    }

    /**
     * @param refresh  the regular interval between downloads
     * @param least    the least time between two downloads asked for by unknown serials
     * @param retry    how soon a failed download is tried again
     */
    record Timing(Duration refresh, Duration least, Duration retry) {
    }

    private final String mchid;
    private final Supplier<CompletionStage<List<PlatformCertificate>>> download;
    private final Clock clock;
    private final Timing timing;
    private final Outcome outcome;
    private volatile Map<String, PublicKey> held = Map.of();
    private volatile boolean failing;
    private volatile Optional<Instant> lastExpiry = Optional.empty();
    private CompletableFuture<Void> inFlight;
    private Instant lastAttempt;
    private Instant due;

    RefreshedCertificates(String mchid, Supplier<CompletionStage<List<PlatformCertificate>>> download, Clock clock,
                          Timing timing, Outcome outcome) {
        this.mchid = mchid;
        this.download = download;
        this.clock = clock;
        this.timing = timing;
        this.outcome = outcome;
        this.due = clock.instant();
    }

    String mchid() {
        return mchid;
    }

    @Override
    public Optional<PublicKey> key(String serial) {
        return Optional.ofNullable(held.get(serial));
    }

    @Override
    public Set<String> serials() {
        return held.keySet();
    }

    /** Whether the last download failed (the set before it is held). */
    boolean failing() {
        return failing;
    }

    /** When the last certificate held stops being valid; empty before the first download. */
    Optional<Instant> lastExpiry() {
        return lastExpiry;
    }

    @Override
    public CompletionStage<Boolean> learn(String serial) {
        if (held.containsKey(serial)) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Void> downloading;
        synchronized (this) {
            if (inFlight != null) {
                downloading = inFlight;
            } else if (lastAttempt != null && clock.instant().isBefore(lastAttempt.plus(timing.least()))) {
                return CompletableFuture.completedFuture(false);
            } else {
                downloading = start();
            }
        }
        return downloading.thenApply(nothing -> held.containsKey(serial));
    }

    /** Downloads when the set is due: at first, every refresh interval, after a failure's retry interval. */
    synchronized void refreshIfDue() {
        if (inFlight == null && !clock.instant().isBefore(due)) {
            start();
        }
    }

    /** Completes when the download it starts (or the one under way) is over, failed or not. */
    synchronized CompletableFuture<Void> refresh() {
        return inFlight != null ? inFlight : start();
    }

    private CompletableFuture<Void> start() {
        lastAttempt = clock.instant();
        CompletableFuture<Void> started = new CompletableFuture<>();
        inFlight = started;
        CompletionStage<List<PlatformCertificate>> answer;
        try {
            answer = download.get();
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((certificates, failure) -> {
            synchronized (this) {
                if (failure == null) {
                    Map<String, PublicKey> next = new HashMap<>();
                    certificates.forEach(certificate -> next.put(certificate.serial(), certificate.key()));
                    held = Map.copyOf(next);
                    lastExpiry = certificates.stream().map(PlatformCertificate::notAfter).max(Instant::compareTo);
                    failing = false;
                    due = clock.instant().plus(timing.refresh());
                } else {
                    failing = true;
                    due = clock.instant().plus(timing.retry());
                }
                inFlight = null;
            }
            if (failure == null) {
                outcome.downloaded(this, certificates);
            } else {
                outcome.failed(this, failure);
            }
            started.complete(null);
        });
        return started;
    }

    @Override
    public String toString() {
        return "RefreshedCertificates[mchid=" + mchid + ", serials=" + held.keySet() + (failing ? ", failing" : "") + "]";
    }
}
