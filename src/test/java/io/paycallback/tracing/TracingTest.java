package io.paycallback.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.order.Refunds;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.EventSink;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.paycallback.testsupport.TracingOn;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One Stripe payment followed through the service with tracing on: its callback's span, the transition that continues
 * the trace from the traceparent stored with the callback, and the delivery that continues it from the one stored with
 * the event, down to the traceparent the destination receives.
 */
@QuarkusTest
@TestProfile(TracingOn.class)
class TracingTest extends AgainstFakeProviders {

    private static final Path LOG = Path.of("target/quarkus-test.log");

    @Inject
    InMemorySpanExporter spans;
    @Inject
    Scanner scanner;

    private final EventSink sink = new EventSink();

    @BeforeEach
    void nothingReceivedNothingExported() {
        sink.reset();
        spans.reset();
    }

    @Test
    void aStripePaymentIsOneTraceFromItsCallbackToTheDeliveredOrderPaid() {
        String outTradeNo = Ids.unique("TRC");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        String paymentIntent = Ids.unique("pi_TRC");
        SignedCallback callback = signer.stripePayment(outTradeNo, paymentIntent, 8800, "cny", Instant.now());
        Send.payment(callback).then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel = 'stripe' AND channel_trade_no = ?",
                paymentIntent).getLong("id");
        String key = "pay:" + id + ":order.paid:sink";

        await().atMost(WAIT).until(() -> named(SpanName.DELIVERY).stream()
                .anyMatch(span -> key.equals(text(span, SpanAttribute.EVENT_ID))));
        SpanData received = only(SpanName.CALLBACK, SpanAttribute.MERCHANT, "default", SpanAttribute.PROVIDER, "stripe",
                span -> span.getTraceId().equals(traceIdOf("pay_callback_log", id)));
        SpanData transition = only(SpanName.TRANSITION, SpanAttribute.ROW, Long.toString(id), SpanAttribute.OUTCOME, "paid");
        SpanData delivery = only(SpanName.DELIVERY, SpanAttribute.EVENT_ID, key);
        SpanData batch = spanWithId(transition.getLinks().get(0).getSpanContext().getSpanId());
        String traceId = received.getTraceId();

        assertThat(attributes(received)).containsEntry("pay.provider", "stripe")
                .containsEntry("pay.merchant", "default").containsEntry("pay.kind", "PAYMENT")
                .containsEntry("pay.outcome", "new");
        assertThat(db.first("SELECT traceparent FROM pay_callback_log WHERE id = ?", id).getString("traceparent"))
                .isEqualTo("00-" + traceId + "-" + received.getSpanId() + "-01");

        assertThat(transition.getTraceId()).isEqualTo(traceId);
        assertThat(transition.getParentSpanId()).isEqualTo(received.getSpanId());
        assertThat(attributes(transition)).containsEntry("pay.table", "pay_callback_log")
                .containsEntry("pay.outcome", "paid");
        assertThat(batch.getName()).isEqualTo(SpanName.TRANSITION_BATCH.spanName());
        assertThat(batch.getTraceId()).isNotEqualTo(traceId);
        assertThat(batch.getLinks()).extracting(link -> link.getSpanContext().getSpanId())
                .contains(transition.getSpanId());

        assertThat(db.first("SELECT traceparent FROM outbox WHERE source = ? AND type = 'order.paid'", "pay:" + id)
                .getString("traceparent")).isEqualTo("00-" + traceId + "-" + transition.getSpanId() + "-01");
        assertThat(delivery.getTraceId()).isEqualTo(traceId);
        assertThat(delivery.getParentSpanId()).isEqualTo(transition.getSpanId());
        assertThat(delivery.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(attributes(delivery)).containsEntry("pay.destination", "sink")
                .containsEntry("pay.event.type", "order.paid").containsEntry("pay.try", "1")
                .containsEntry("pay.outcome", "delivered").containsEntry("http.response.status_code", "200");

        assertThat(sink.receivedFor("pay:" + id)).containsExactly(key + " order.paid");
        assertThat(sink.traceparentsOf(key)).containsExactly("00-" + traceId + "-" + delivery.getSpanId() + "-01");

        String signature = callback.headers().get("Stripe-Signature");
        List<SpanData> trace = spans.getFinishedSpanItems().stream().filter(span -> span.getTraceId().equals(traceId))
                .toList();
        trace.forEach(span -> attributes(span).values().forEach(value -> assertThat(value)
                .doesNotContain(signature.substring(signature.indexOf("v1=") + 3))
                .doesNotContain(ProviderKeys.fromConfig().stripeSecret())
                .doesNotContain("payment_intent.succeeded")));
        print(trace, batch);
    }

    @Test
    void aRefundOfAPaymentMadeTwiceIsSubmittedAndSettledInTheTraceOfTheCallbackThatCausedIt() {
        String outTradeNo = newOrder("5.00", "CNY");
        Send.payment(signer.wxPayment(outTradeNo, Ids.unique("42000"), 500, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        String second = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, second, 500, "SUCCESS", Instant.now())).then().statusCode(200);
        long secondId = db.first("SELECT id FROM pay_callback_log WHERE channel = 'wxpay' AND channel_trade_no = ?",
                second).getLong("id");
        String refundNo = "RFP" + secondId;
        awaitRefundStatus(refundNo, "REQUESTED");
        SpanData paidAgain = only(SpanName.CALLBACK, SpanAttribute.PROVIDER, "wxpay", SpanAttribute.OUTCOME, "new",
                span -> span.getTraceId().equals(traceIdOf("pay_callback_log", secondId)));
        assertThat(db.first("SELECT traceparent FROM refund_submissions WHERE refund_no = ?", refundNo)
                .getString("traceparent")).isEqualTo("00-" + paidAgain.getTraceId() + "-" + paidAgain.getSpanId() + "-01");

        scanner.drain(Refunds.SUBMISSIONS);
        await().atMost(WAIT).until(() -> named(SpanName.PROVIDER_TRY).stream()
                .anyMatch(span -> paidAgain.getTraceId().equals(span.getTraceId())));
        SpanData submitted = named(SpanName.PROVIDER_TRY).stream()
                .filter(span -> paidAgain.getTraceId().equals(span.getTraceId())).findFirst().orElseThrow();
        assertThat(submitted.getParentSpanId()).isEqualTo(paidAgain.getSpanId());
        assertThat(attributes(submitted)).containsEntry("pay.table", "refund_submissions").containsEntry("pay.try", "1");
        await().atMost(WAIT).until(() -> named(SpanName.PROVIDER_CALL).stream()
                .anyMatch(span -> submitted.getSpanId().equals(span.getParentSpanId())));
        assertThat(named(SpanName.PROVIDER_CALL).stream().filter(span -> submitted.getSpanId().equals(span.getParentSpanId())))
                .allSatisfy(call -> assertThat(attributes(call)).containsEntry("pay.provider", "wxpay")
                        .containsKey("http.response.status_code"));

        long answer = db.first("SELECT id FROM refund_callback_log WHERE refund_no = ?", refundNo).getLong("id");
        assertThat(traceIdOf("refund_callback_log", answer)).isEqualTo(paidAgain.getTraceId());
        scanner.drain(CallbackTable.REFUND.leased());
        await().atMost(WAIT).until(() -> named(SpanName.TRANSITION).stream()
                .anyMatch(span -> Long.toString(answer).equals(text(span, SpanAttribute.ROW))
                        && "refund_callback_log".equals(text(span, SpanAttribute.TABLE))
                        && !"rolled_back".equals(text(span, SpanAttribute.OUTCOME))));
        SpanData settled = only(SpanName.TRANSITION, SpanAttribute.ROW, Long.toString(answer), SpanAttribute.TABLE,
                "refund_callback_log", span -> !"rolled_back".equals(text(span, SpanAttribute.OUTCOME)));
        assertThat(settled.getTraceId()).isEqualTo(paidAgain.getTraceId());
        assertThat(settled.getParentSpanId()).isEqualTo(submitted.getSpanId());
    }

    @Test
    void aRefundLearnedFromAProcessingNoticeIsQueriedAndSettledInTheNoticesTrace() {
        DashboardRefund refund = processingWechatRefund();
        String outRefundNo = refund.outRefundNo();
        long pending = db.first("SELECT id FROM refund_pending_log WHERE refund_no = ?", outRefundNo).getLong("id");
        String traceId = traceIdOf("refund_pending_log", pending);
        await().atMost(WAIT).until(() -> named(SpanName.CALLBACK).stream().anyMatch(span -> span.getTraceId().equals(traceId)));
        SpanData notice = only(SpanName.CALLBACK, SpanAttribute.PROVIDER, "wxpay", SpanAttribute.KIND, "REFUND",
                span -> span.getTraceId().equals(traceId));
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM refund_submissions WHERE refund_no = ?",
                outRefundNo) == 1);
        assertThat(db.first("SELECT traceparent FROM refund_submissions WHERE refund_no = ?", outRefundNo)
                .getString("traceparent")).isEqualTo("00-" + notice.getTraceId() + "-" + notice.getSpanId() + "-01");

        refundSucceedsAtWechat(refund);
        scanner.drain(Refunds.SUBMISSIONS);
        await().atMost(WAIT).until(() -> named(SpanName.PROVIDER_TRY).stream()
                .anyMatch(span -> notice.getTraceId().equals(span.getTraceId())));
        SpanData queried = named(SpanName.PROVIDER_TRY).stream()
                .filter(span -> notice.getTraceId().equals(span.getTraceId())).findFirst().orElseThrow();
        assertThat(queried.getParentSpanId()).isEqualTo(notice.getSpanId());
        assertThat(attributes(queried)).containsEntry("pay.table", "refund_submissions");

        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(outRefundNo, "SUCCEEDED");
        long answer = db.first("SELECT id FROM refund_callback_log WHERE refund_no = ?", outRefundNo).getLong("id");
        assertThat(traceIdOf("refund_callback_log", answer)).isEqualTo(notice.getTraceId());
    }

    @Test
    void aTraceparentTheCallbackArrivesWithIsALinkOfANewTraceNotItsParent() {
        String ingressTrace = UUID.randomUUID().toString().replace("-", "");
        String ingress = "00-" + ingressTrace + "-00f067aa0ba902b7-01";

        SpanData linked = callbackSpanOf(stripePaymentWith(ingress));
        assertThat(linked.getParentSpanContext().isValid()).as("a root").isFalse();
        assertThat(linked.getTraceId()).isNotEqualTo(ingressTrace);
        assertThat(linked.getLinks()).singleElement().satisfies(link -> {
            assertThat(link.getSpanContext().getTraceId()).isEqualTo(ingressTrace);
            assertThat(link.getSpanContext().getSpanId()).isEqualTo("00f067aa0ba902b7");
            assertThat(link.getSpanContext().isRemote()).isTrue();
        });

        SpanData unlinked = callbackSpanOf(stripePaymentWith(ingress.toUpperCase(Locale.ROOT)));
        assertThat(unlinked.getParentSpanContext().isValid()).isFalse();
        assertThat(unlinked.getLinks()).as("a malformed traceparent is ignored").isEmpty();
    }

    /** Sends a signed Stripe payment carrying {@code traceparent}; its callback row's id. */
    private long stripePaymentWith(String traceparent) {
        String outTradeNo = newOrder("3.00", "CNY");
        String paymentIntent = Ids.unique("pi_TRC");
        SignedCallback signed = signer.stripePayment(outTradeNo, paymentIntent, 300, "cny", Instant.now());
        Map<String, String> headers = new HashMap<>(signed.headers());
        headers.put(Traceparent.HEADER, traceparent);
        Send.payment(new SignedCallback("stripe", headers, signed.contentType(), signed.body())).then().statusCode(200);
        return db.first("SELECT id FROM pay_callback_log WHERE channel = 'stripe' AND channel_trade_no = ?",
                paymentIntent).getLong("id");
    }

    /** The callback span whose traceparent its row stores: the start of a new trace the transition continues. */
    private SpanData callbackSpanOf(long id) {
        String traceId = traceIdOf("pay_callback_log", id);
        await().atMost(WAIT).until(() -> named(SpanName.CALLBACK).stream().anyMatch(span -> span.getTraceId().equals(traceId)));
        SpanData received = only(SpanName.CALLBACK, SpanAttribute.PROVIDER, "stripe", SpanAttribute.OUTCOME, "new",
                span -> span.getTraceId().equals(traceId));
        assertThat(db.first("SELECT traceparent FROM pay_callback_log WHERE id = ?", id).getString("traceparent"))
                .isEqualTo("00-" + traceId + "-" + received.getSpanId() + "-01");
        return received;
    }

    @Test
    void aRefusedCallbackIsASpanWhoseTraceIdItsLogLineCarries() throws Exception {
        SignedCallback callback = signer.stripePayment(Ids.unique("TRC"), Ids.unique("pi_TRC"), 100, "cny",
                Instant.now());
        Map<String, String> forged = new HashMap<>(callback.headers());
        forged.put("Stripe-Signature", "t=" + Instant.now().getEpochSecond() + ",v1=" + "0".repeat(64));
        Send.payment(new SignedCallback("stripe", forged, callback.contentType(), callback.body())).then().statusCode(400);

        await().atMost(WAIT).until(() -> named(SpanName.CALLBACK).stream()
                .anyMatch(span -> "bad_signature".equals(text(span, SpanAttribute.OUTCOME))));
        SpanData refused = named(SpanName.CALLBACK).stream()
                .filter(span -> "bad_signature".equals(text(span, SpanAttribute.OUTCOME))).findFirst().orElseThrow();
        await().atMost(WAIT).until(() -> Files.readString(LOG, StandardCharsets.UTF_8).lines()
                .anyMatch(line -> line.contains("Refused stripe PAYMENT callback") && line.contains(refused.getTraceId())));
    }

    private List<SpanData> named(SpanName name) {
        return spans.getFinishedSpanItems().stream().filter(span -> span.getName().equals(name.spanName())).toList();
    }

    private SpanData only(SpanName name, SpanAttribute attribute, String value) {
        return only(name, attribute, value, attribute, value);
    }

    private SpanData only(SpanName name, SpanAttribute first, String firstValue, SpanAttribute second,
                          String secondValue) {
        return only(name, first, firstValue, second, secondValue, span -> true);
    }

    private SpanData only(SpanName name, SpanAttribute first, String firstValue, SpanAttribute second,
                          String secondValue, Predicate<SpanData> and) {
        List<SpanData> found = named(name).stream().filter(span -> firstValue.equals(text(span, first))
                && secondValue.equals(text(span, second)) && and.test(span)).toList();
        assertThat(found).as(name + " spans").hasSize(1);
        return found.get(0);
    }

    private String traceIdOf(String table, long id) {
        return Traceparent.parse(db.first("SELECT traceparent FROM " + table + " WHERE id = ?", id)
                .getString("traceparent")).orElseThrow().traceId();
    }

    private SpanData spanWithId(String spanId) {
        await().atMost(WAIT).until(() -> spans.getFinishedSpanItems().stream()
                .anyMatch(span -> span.getSpanId().equals(spanId)));
        return spans.getFinishedSpanItems().stream().filter(span -> span.getSpanId().equals(spanId)).findFirst()
                .orElseThrow();
    }

    private static String text(SpanData span, SpanAttribute attribute) {
        Object value = Optional.<Object>ofNullable(span.getAttributes().get(AttributeKey.stringKey(attribute.key())))
                .orElse(span.getAttributes().get(AttributeKey.longKey(attribute.key())));
        return value == null ? null : value.toString();
    }

    private static Map<String, String> attributes(SpanData span) {
        Map<String, String> all = new HashMap<>();
        span.getAttributes().forEach((key, value) -> all.put(key.getKey(), String.valueOf(value)));
        return all;
    }

    /** The payment's trace and its batch as docs/operations.md shows them: one line per span, in start order. */
    private static void print(List<SpanData> trace, SpanData batch) {
        List<SpanData> all = new ArrayList<>(trace);
        all.add(batch);
        all.sort(Comparator.comparingLong(SpanData::getStartEpochNanos));
        long start = all.get(0).getStartEpochNanos();
        System.out.println("| span | kind | trace | span id | parent | links | starts at | lasts | attributes |");
        for (SpanData span : all) {
            System.out.printf("| `%s` | %s | %s | %s | %s | %s | %.1f ms | %.1f ms | %s |%n", span.getName(),
                    span.getKind(), span.getTraceId().substring(0, 8), span.getSpanId().substring(0, 8),
                    span.getParentSpanContext().isValid() ? span.getParentSpanId().substring(0, 8) : "",
                    span.getLinks().stream().map(LinkData::getSpanContext).map(link -> link.getSpanId().substring(0, 8))
                            .collect(Collectors.joining(", ")),
                    (span.getStartEpochNanos() - start) / 1e6, (span.getEndEpochNanos() - span.getStartEpochNanos()) / 1e6,
                    new TreeMap<>(attributes(span)).entrySet().stream()
                            .map(entry -> entry.getKey() + "=" + entry.getValue()).collect(Collectors.joining(", ")));
        }
    }
}
