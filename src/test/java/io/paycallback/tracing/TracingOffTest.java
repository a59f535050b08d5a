package io.paycallback.tracing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.EventSink;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Tracing as every deployment without a collector has it: off, so nothing is recorded, stored, sent or logged. */
@QuarkusTest
class TracingOffTest {

    @Inject
    InMemorySpanExporter spans;
    @Inject
    Tracing tracing;
    @Inject
    Pool pool;

    @Test
    void aPaymentWithTracingOffExportsNothingStoresNoTraceparentAndSendsNoneWhateverTraceparentItCarries()
            throws Exception {
        EventSink sink = new EventSink();
        sink.reset();
        spans.reset();
        Db db = new Db(pool);
        String outTradeNo = Ids.unique("OFF");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        String paymentIntent = Ids.unique("pi_OFF");
        SignedCallback signed = new ProviderSigner(ProviderKeys.fromConfig())
                .stripePayment(outTradeNo, paymentIntent, 8800, "cny", Instant.now());
        Map<String, String> headers = new HashMap<>(signed.headers());
        headers.put(Traceparent.HEADER, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        Send.payment(new SignedCallback("stripe", headers, signed.contentType(), signed.body())).then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel = 'stripe' AND channel_trade_no = ?",
                paymentIntent).getLong("id");
        String key = "pay:" + id + ":order.paid:sink";
        await().atMost(Duration.ofSeconds(20)).until(() -> sink.receivedFor("pay:" + id).size() == 1);

        assertThat(tracing.on()).isFalse();
        assertThat(spans.getFinishedSpanItems()).isEmpty();
        assertThat(db.first("SELECT traceparent FROM pay_callback_log WHERE id = ?", id).getString("traceparent"))
                .isNull();
        assertThat(db.first("SELECT traceparent FROM outbox WHERE source = ?", "pay:" + id).getString("traceparent"))
                .isNull();
        assertThat(sink.traceparentsOf(key)).isEmpty();
        assertThat(Files.readString(Path.of("target/quarkus-test.log"), StandardCharsets.UTF_8))
                .doesNotContain("Failed to export").doesNotContain("Exporter");
    }
}
