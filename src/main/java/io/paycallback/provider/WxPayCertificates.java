package io.paycallback.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.channel.Rejection;
import io.paycallback.channel.wxpay.CertificateAnswer;
import io.paycallback.channel.wxpay.CertificateAnswer.PlatformCertificate;
import io.paycallback.channel.wxpay.PlatformCertificates;
import io.paycallback.tracing.Tracing;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.http.HttpMethod;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import org.jboss.logging.Logger;

import javax.crypto.SecretKey;
import java.lang.ref.WeakReference;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WeChat Pay's platform certificates (证书模式), downloaded with {@code GET /v3/certificates} for every merchant and
 * partner that has API keys and pins no keys, or asks for them ({@code auto-certificates}). One set per set of API
 * keys, shared by every build of the registry that serves them (a partner's by all its sub-merchants), and dropped
 * with the last channel that holds it. The requests go through the reactive client; the answer is decrypted and
 * checked on a worker, never on the event loop.
 */
public final class WxPayCertificates {

    private static final Logger LOG = Logger.getLogger(WxPayCertificates.class);
    private static final String PROVIDER = "wxpay";
    static final String URL = "/v3/certificates";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a set is downloaded with: the merchant's API keys, and the keys it pins, which may sign the answer too. */
    private record Credentials(String mchid, String serial, PrivateKey privateKey, SecretKey apiV3Key,
                               Map<String, PublicKey> pinned) {
        @Override
        public String toString() {
            return "Credentials[mchid=" + mchid + ", serial=" + serial + "]";
        }
    }

    private final WebClient http;
    private final Tracing tracing;
    private final String baseUrl;
    private final Duration timeout;
    private final Clock clock;
    private final RefreshedCertificates.Timing timing;
    private final Map<Credentials, WeakReference<RefreshedCertificates>> sets = new ConcurrentHashMap<>();
    private final Counter failures;
    private final Counter downloads;
    private final RefreshedCertificates.Outcome outcome = new RefreshedCertificates.Outcome() {
        @Override
        public void downloaded(RefreshedCertificates set, List<PlatformCertificate> certificates) {
            downloads.increment();
            LOG.debugf("WeChat Pay platform certificates of mchid %s: %s", set.mchid(),
                    certificates.stream().map(PlatformCertificate::serial).sorted().toList());
        }

        @Override
        public void failed(RefreshedCertificates set, Throwable failure) {
            failures.increment();
            LOG.warnf("WeChat Pay platform certificates of mchid %s could not be downloaded (%s); the %d held are kept",
                    set.mchid(), reason(failure), set.serials().size());
        }
    };

    WxPayCertificates(WebClient http, Tracing tracing, String baseUrl, Duration timeout, Clock clock,
                      ProviderConfig.Certificates config, MeterRegistry meters) {
        this.http = http;
        this.tracing = tracing;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.timeout = timeout;
        this.clock = clock;
        this.timing = new RefreshedCertificates.Timing(config.refreshInterval(), config.leastInterval(),
                config.retryInterval());
        this.failures = Counter.builder("paycallback.wxpay.certificates.failures")
                .description("Downloads of WeChat Pay platform certificates that failed; the certificates held are kept")
                .register(meters);
        this.downloads = Counter.builder("paycallback.wxpay.certificates.downloads")
                .description("Downloads of WeChat Pay platform certificates that succeeded")
                .register(meters);
        Gauge.builder("paycallback.wxpay.certificates.failing", this, WxPayCertificates::failing)
                .description("Merchants and partners whose last download of WeChat Pay platform certificates failed")
                .register(meters);
    }

    /**
     * One set as an operator sees it.
     *
     * @param failing    whether its last download failed
     * @param lastExpiry when the last certificate it holds stops being valid; empty before its first download
     */
    public record HeldSet(String mchid, boolean failing, Optional<Instant> lastExpiry) {
    }

    /** Every set held now. */
    public List<HeldSet> held() {
        List<HeldSet> held = new ArrayList<>();
        for (WeakReference<RefreshedCertificates> reference : sets.values()) {
            RefreshedCertificates set = reference.get();
            if (set != null) {
                held.add(new HeldSet(set.mchid(), set.failing(), set.lastExpiry()));
            }
        }
        return held;
    }

    /** Looks at every set every {@code period}, and downloads those that are due. */
    long schedule(Vertx vertx, Duration period) {
        return vertx.setPeriodic(Math.max(1000, period.toMillis()), id -> sweep());
    }

    /**
     * The certificates of these API keys: the set already downloaded for them, or a new one whose first download
     * starts now.
     */
    public PlatformCertificates of(String mchid, String merchantSerial, PrivateKey privateKey, SecretKey apiV3Key,
                                   Map<String, PublicKey> pinned) {
        Credentials credentials = new Credentials(mchid, merchantSerial, privateKey, apiV3Key, Map.copyOf(pinned));
        RefreshedCertificates[] held = new RefreshedCertificates[1];
        sets.compute(credentials, (key, before) -> {
            held[0] = before == null ? null : before.get();
            if (held[0] != null) {
                return before;
            }
            held[0] = new RefreshedCertificates(mchid, () -> download(key), clock, timing, outcome);
            return new WeakReference<>(held[0]);
        });
        held[0].refreshIfDue();
        return held[0];
    }

    void sweep() {
        sets.forEach((credentials, reference) -> {
            RefreshedCertificates set = reference.get();
            if (set == null) {
                sets.remove(credentials, reference);
            } else {
                set.refreshIfDue();
            }
        });
    }

    private int failing() {
        int failing = 0;
        for (WeakReference<RefreshedCertificates> reference : sets.values()) {
            RefreshedCertificates set = reference.get();
            if (set != null && set.failing()) {
                failing++;
            }
        }
        return failing;
    }

    /** Signed like every v3 request; the answer verified, decrypted and checked by {@link CertificateAnswer}. */
    private CompletionStage<List<PlatformCertificate>> download(Credentials credentials) {
        String authorization = WxPayAuthorization.header(credentials.mchid(), credentials.serial(),
                credentials.privateKey(), "GET", URL, clock.instant().getEpochSecond(),
                UUID.randomUUID().toString().replace("-", ""), "");
        var request = http.requestAbs(HttpMethod.GET, baseUrl + URL)
                .putHeader("Authorization", authorization)
                .putHeader("Accept", "application/json");
        return ProviderHttp.send(tracing, PROVIDER, request, null, timeout)
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .map(response -> {
                    if (response.status() != 200) {
                        throw new ProviderException(PROVIDER, response.status() >= 500
                                ? new ProviderFailure.ServerError(response.status(), null)
                                : new ProviderFailure.Rejected(response.status(), errorCode(response.body()), null));
                    }
                    try {
                        return CertificateAnswer.read(response.headers(), response.body(), credentials.apiV3Key(),
                                credentials.pinned()::get, clock);
                    } catch (Rejection rejection) {
                        throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("certificates: "
                                + Parsing.reason(rejection)));
                    }
                })
                .subscribeAsCompletionStage();
    }

    private static String errorCode(byte[] body) {
        try {
            return JSON.readTree(body).path("code").asText("UNKNOWN");
        } catch (java.io.IOException e) {
            return "UNKNOWN";
        }
    }

    private static String reason(Throwable failure) {
        Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof ProviderException provider ? provider.getMessage() : cause.getClass().getSimpleName();
    }
}
