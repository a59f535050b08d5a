package io.paycallback.statement;

import io.paycallback.lease.Scanner;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.Providers;
import io.paycallback.trade.ChannelId;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDate;
import java.util.List;

import static io.paycallback.statement.StatementLedger.payment;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/** The operators' statement API: runs and discrepancies listed, a discrepancy resolved with a note, a date re-run. */
@QuarkusTest
class StatementApiTest {

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    StatementSchedule schedule;
    @Inject
    StatementMetrics metrics;

    private final Providers providers = new Providers();

    @Test
    void anOperatorListsResolvesWithANoteAndReRunsKeepingTheResolution() {
        Db db = new Db(pool);
        LocalDate date = new StatementLedger(db).freshDate(ChannelId.WXPAY);
        String first = Ids.unique("AP");
        String second = Ids.unique("AP");
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(first, "4200" + first, "2.00", "CNY", SUCCEEDED),
                payment(second, "4200" + second, "3.00", "CNY", SUCCEEDED)), BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());
        schedule.enrol(ChannelId.WXPAY, date);
        StatementLedger.drained(scanner, db, () -> runRow(db, date));

        Api.as(Api.ALICE_TOKEN).get("/admin/statements/runs?channel=wxpay&from=" + date + "&to=" + date).then()
                .statusCode(200).body("$", hasSize(1)).body("[0].state", equalTo("DIFFERENCES"))
                .body("[0].bill.paymentCount", equalTo(2)).body("[0].bill.paymentSum", equalTo(5.0f))
                .body("[0].ours.paymentCount", equalTo(0)).body("[0].linesCompared", equalTo(2));
        List<Integer> ids = Api.as(Api.ALICE_TOKEN)
                .get("/admin/statements/discrepancies?state=open&kind=not_registered&channel=wxpay&billDate=" + date)
                .then().statusCode(200).body("$", hasSize(2)).extract().path("id");
        int resolved = ids.get(0);

        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"note\":\" \"}")
                .post("/admin/statements/discrepancies/" + resolved + "/resolve").then().statusCode(400);
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"note\":\"the shop's test payment\"}")
                .post("/admin/statements/discrepancies/" + resolved + "/resolve").then().statusCode(200)
                .body("state", equalTo("RESOLVED")).body("note", equalTo("the shop's test payment"))
                .body("resolvedBy", equalTo("alice"));
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"note\":\"again\"}")
                .post("/admin/statements/discrepancies/" + resolved + "/resolve").then().statusCode(409);
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"note\":\"x\"}")
                .post("/admin/statements/discrepancies/999999999/resolve").then().statusCode(404);
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'alice' AND action = 'statement_resolve'"
                + " AND target LIKE ?", "statement_discrepancies#" + resolved + ":%")).isEqualTo(1);

        Api.as(Api.BOB_TOKEN).contentType("application/json")
                .body("{\"channel\":\"wxpay\",\"billDate\":\"" + date + "\"}").post("/admin/statements/runs").then()
                .statusCode(200).body("outcome", equalTo("requeued"));
        StatementLedger.drained(scanner, db, () -> runRow(db, date));
        Api.as(Api.BOB_TOKEN).get("/admin/statements/discrepancies?channel=wxpay&billDate=" + date).then()
                .statusCode(200).body("$", hasSize(2))
                .body("find { it.id == " + resolved + " }.state", equalTo("RESOLVED"))
                .body("find { it.id != " + resolved + " }.state", equalTo("OPEN"));
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'bob' AND action = 'statement_rerun'"
                + " AND target = ?", "statement_runs default/wxpay/" + date)).isEqualTo(1);

        metrics.recount(Duration.ofSeconds(10));
        String scraped = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(scraped).contains("paycallback_statement_discrepancies_open{kind=\"not_registered\"}")
                .contains("paycallback_statement_runs_total{channel=\"wxpay\",result=\"differences\"}")
                .contains("paycallback_statement_lines_total{channel=\"wxpay\"}")
                .contains("paycallback_statement_last_success_timestamp_seconds{channel=\"wxpay\"}")
                .contains("paycallback_statement_discrepancy_oldest_open_seconds");
    }

    private static io.vertx.mutiny.sqlclient.Row runRow(Db db, LocalDate date) {
        return db.first("SELECT id, status, retry_count, state FROM statement_runs WHERE channel = 'wxpay' AND bill_date = ?",
                date);
    }

    @Test
    void badFiltersAreRefusedAndOnlyOperatorsGetIn() {
        Api.as(Api.ALICE_TOKEN).get("/admin/statements/discrepancies?kind=lost").then().statusCode(400);
        Api.as(Api.ALICE_TOKEN).get("/admin/statements/runs?from=2026-13-01").then().statusCode(400);
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"channel\":\"paypal\",\"billDate\":\"2026-12-01\"}")
                .post("/admin/statements/runs").then().statusCode(400);
        Api.as(Api.ORDER_SERVICE_TOKEN).get("/admin/statements/runs").then().statusCode(403);
        given().get("/admin/statements/runs").then().statusCode(401);
    }
}
