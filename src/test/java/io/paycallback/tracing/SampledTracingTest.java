package io.paycallback.tracing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.TracingOn;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tracing at 1 % keeps about one callback in a hundred, each a trace of its own: a span left current on an event loop
 * would make every later callback there its child, kept or dropped with it, and merge unrelated payments into one
 * trace.
 */
@QuarkusTest
@TestProfile(SampledTracingTest.OnePercent.class)
class SampledTracingTest extends AgainstFakeProviders {

    public static class OnePercent extends TracingOn {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
            overrides.put("quarkus.otel.traces.sampler.arg", "0.01");
            return overrides;
        }
    }

    private static final int CALLBACKS = 300;

    @Inject
    InMemorySpanExporter spans;

    @Test
    void aboutOneCallbackInAHundredIsKeptEachInATraceOfItsOwn() {
        spans.reset();
        String prefix = Ids.unique("SMP");
        for (int i = 0; i < CALLBACKS; i++) {
            String outTradeNo = prefix + "-" + i;
            Api.createOrder(outTradeNo, "1.00", "CNY").then().statusCode(201);
            Send.payment(signer.stripePayment(outTradeNo, Ids.unique("pi_SMP"), 100, "cny", Instant.now()))
                    .then().statusCode(200);
        }
        // Their transitions come after the callbacks' spans ended, and the exporter sends within 50 ms.
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM orders WHERE out_trade_no LIKE ? AND status = 'PAID'",
                prefix + "-%") == CALLBACKS);
        List<SpanData> callbacks = spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(SpanName.CALLBACK.spanName())).toList();
        Set<String> traces = callbacks.stream().map(SpanData::getTraceId).collect(Collectors.toSet());
        // Binomial(300, 0.01): 20 or more kept has a probability below 1e-9.
        assertThat(callbacks).as("callback spans kept of " + CALLBACKS).hasSizeLessThan(20);
        assertThat(traces).as("one trace per kept callback").hasSameSizeAs(callbacks);
        assertThat(callbacks).allSatisfy(span -> assertThat(span.getParentSpanContext().isValid()).isFalse());
    }
}
