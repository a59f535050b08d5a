package io.paycallback.provider;

import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.ChannelId;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The provider API clients the merchant registry serves: a merchant has a provider's client when it has API keys
 * there (its own, or its platform's naming it); without them it simply gets no queries, refunds or bills there
 * (callbacks still work). The registry builds every provider's client from its snapshot and swaps them in at once.
 */
@ApplicationScoped
public class ProviderClients {

    private static final int IDLE_SECONDS = 15;

    /** What a provider's client is built with: the shared HTTP client, spans, clock, where each provider is, downloads. */
    public record Context(WebClient http, Tracing tracing, Clock clock, Duration timeout, String wxpayBaseUrl,
                          String alipayGatewayUrl, String stripeBaseUrl, Downloads downloads,
                          WxPayCertificates wxpayCertificates, AlipayCertificateStore alipayCertificates) {
    }

    private final WebClient http;
    private final Context context;
    private final Vertx vertx;
    private final long certificateSweep;
    private volatile Map<ChannelId, ProviderApi> clients = Map.of();

    public ProviderClients(ProviderConfig providers, Clock clock, Vertx vertx, Tracing tracing, MeterRegistry meters) {
        // Idle connections are dropped before the servers' usual idle timeouts (nginx 75 s, the JDK's HttpServer that
        // the tests' fake providers run on 30 s): a connection reused just as the server closes it fails that call
        // with HttpClosedException, and a close or refund then waits for its backoff instead of answering at once.
        // Each call is a span of ours (ProviderHttp); no traceparent goes to a provider.
        this.http = WebClient.create(vertx, new WebClientOptions().setKeepAliveTimeout(IDLE_SECONDS)
                .setTracingPolicy(TracingPolicy.IGNORE));
        ProviderConfig.Certificates certificates = providers.wxpay().certificates();
        WxPayCertificates wxpayCertificates = new WxPayCertificates(http, tracing, providers.wxpay().baseUrl(),
                providers.timeout(), clock, certificates, meters);
        this.vertx = vertx;
        this.certificateSweep = wxpayCertificates.schedule(vertx,
                certificates.leastInterval().compareTo(certificates.retryInterval()) < 0
                        ? certificates.leastInterval() : certificates.retryInterval());
        this.context = new Context(http, tracing, clock, providers.timeout(), providers.wxpay().baseUrl(),
                providers.alipay().gatewayUrl(), providers.stripe().baseUrl(), new Downloads(providers.timeout(), tracing),
                wxpayCertificates, new AlipayCertificateStore(clock));
    }

    public Context context() {
        return context;
    }

    /** Serves these clients from now on, every provider's at once. */
    public void replace(Map<ChannelId, ProviderApi> served) {
        this.clients = Map.copyOf(served);
    }

    @PreDestroy
    void close() {
        vertx.cancelTimer(certificateSweep);
        http.close();
    }

    public Optional<ProviderClient> find(ChannelId channel, String merchantId) {
        return served(channel, merchantId).map(ProviderClient.class::cast);
    }

    /** The provider's bills for this merchant, when it has API keys there (the same keys the queries use). */
    public Optional<StatementClient> statements(ChannelId channel, String merchantId) {
        return served(channel, merchantId).map(StatementClient.class::cast);
    }

    private Optional<ProviderApi> served(ChannelId channel, String merchantId) {
        return Optional.ofNullable(clients.get(channel)).filter(client -> client.serves(merchantId));
    }

    /** Every merchant with API keys for the provider, in a stable order. */
    public List<String> merchants(ChannelId channel) {
        return Optional.ofNullable(clients.get(channel)).map(client -> client.merchantIds().stream().sorted().toList())
                .orElse(List.of());
    }

    /** Every provider this merchant has API keys for. */
    public List<ProviderClient> forMerchant(String merchantId) {
        List<ProviderClient> found = new ArrayList<>();
        for (ChannelId channel : ChannelId.values()) {
            find(channel, merchantId).ifPresent(found::add);
        }
        return found;
    }
}
