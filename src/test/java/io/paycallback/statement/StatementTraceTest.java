package io.paycallback.statement;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.EventSink;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Providers;
import io.paycallback.testsupport.TracingOn;
import io.paycallback.trade.ChannelId;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traceparent;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;

import static io.paycallback.statement.StatementLedger.payment;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With tracing on, a payment a statement run repairs is settled and delivered in the run's trace: the run's span asks
 * the provider, the stored answer keeps its traceparent, and the transition and the delivery continue it.
 */
@QuarkusTest
@TestProfile(TracingOn.class)
class StatementTraceTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    StatementSchedule schedule;
    @Inject
    InMemorySpanExporter spans;

    private final Providers providers = new Providers();
    private final EventSink sink = new EventSink();

    @BeforeEach
    void setUp() {
        providers.reset();
        sink.reset();
        spans.reset();
    }

    @AfterEach
    void providersBackToNormal() {
        providers.reset();
    }

    @Test
    void aPaymentRepairedByAStatementRunIsSettledAndDeliveredInTheRunsTrace() {
        Db db = new Db(pool);
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = new StatementLedger(db).freshDate(wx);
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "66.00", "CNY").then().statusCode(201);
        String transactionId = Ids.unique("42000");
        providers.payment("wxpay", outTradeNo, "SUCCESS", 6600, "CNY", transactionId);
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(outTradeNo, transactionId, "66.00", "CNY", SUCCEEDED)),
                BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());
        schedule.enrol(wx, date);
        StatementLedger.drained(scanner, db, () -> db.first("SELECT id, state, status, retry_count FROM statement_runs"
                + " WHERE merchant_id = ? AND channel = ? AND bill_date = ?", StatementLedger.MERCHANT, wx.path(), date));

        long repaired = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");
        Traceparent stored = Traceparent.parse(db.first("SELECT traceparent FROM pay_callback_log WHERE id = ?", repaired)
                .getString("traceparent")).orElseThrow();
        await().atMost(WAIT).until(() -> spanWithId(stored.spanId()) != null);
        SpanData run = spanWithId(stored.spanId());
        assertThat(run.getName()).isEqualTo(SpanName.STATEMENT_RUN.spanName());
        assertThat(run.getParentSpanContext().isValid()).isFalse();
        assertThat(run.getAttributes().asMap().toString()).contains("pay.table=statement_runs");
        // Among the calls, the bill file's download, whose span lasts until the file is read.
        assertThat(inTrace(run.getTraceId(), SpanName.PROVIDER_CALL)).isNotEmpty()
                .allSatisfy(call -> assertThat(call.getParentSpanId()).isEqualTo(run.getSpanId()))
                .anySatisfy(call -> assertThat(call.getAttributes().asMap().toString())
                        .contains("pay.kind=bill.download", "http.response.status_code=200"));

        scanner.drain(CallbackTable.PAYMENT.leased());
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        await().atMost(WAIT).until(() -> !inTrace(run.getTraceId(), SpanName.DELIVERY).isEmpty());
        // A batch that rolled back (another suite's row in it) leaves a span of its own for the row: the one that paid.
        SpanData transition = inTrace(run.getTraceId(), SpanName.TRANSITION).stream()
                .filter(span -> "paid".equals(span.getAttributes().get(AttributeKey.stringKey("pay.outcome"))))
                .findFirst().orElseThrow();
        assertThat(transition.getParentSpanId()).isEqualTo(run.getSpanId());
        SpanData delivery = inTrace(run.getTraceId(), SpanName.DELIVERY).get(0);
        assertThat(delivery.getParentSpanId()).isEqualTo(transition.getSpanId());
        assertThat(sink.traceparentsOf("pay:" + repaired + ":order.paid:sink"))
                .containsExactly("00-" + run.getTraceId() + "-" + delivery.getSpanId() + "-01");
    }

    private SpanData spanWithId(String spanId) {
        return spans.getFinishedSpanItems().stream().filter(span -> span.getSpanId().equals(spanId)).findFirst()
                .orElse(null);
    }

    private List<SpanData> inTrace(String traceId, SpanName name) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getTraceId().equals(traceId) && span.getName().equals(name.spanName())).toList();
    }
}
