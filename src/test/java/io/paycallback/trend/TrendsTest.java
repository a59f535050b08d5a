package io.paycallback.trend;

import io.paycallback.console.ConsoleSessions;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
class TrendsTest {

    @Inject
    TrendRecorder recorder;
    @Inject
    Trends trends;
    @Inject
    Pool pool;

    private Db db;

    @BeforeEach
    void clean() {
        db = new Db(pool);
        recorder.flush().await().indefinitely();
        db.update("DELETE FROM trend_minutes");
    }

    @Test
    void countsAreSummedAndSamplesTakeTheLargestOverTheInstances() {
        long minute = recorder.minute();
        recorder.count(TrendSeries.CALLBACKS, "wxpay new", 3);
        recorder.count(TrendSeries.CALLBACKS, "wxpay new", 2);
        recorder.sample(TrendSeries.BACKLOG, "warehouse", 7);
        recorder.sample(TrendSeries.BACKLOG, "warehouse", 4);
        assertThat(recorder.flushBefore(minute + 2).await().indefinitely()).isEqualTo(2);
        // Another instance's rows of the same minute.
        db.update("INSERT INTO trend_minutes (minute, series, label, instance, seq, value) VALUES (?, 'callbacks',"
                + " 'wxpay new', 'pod-b', 1, 4), (?, 'backlog', 'warehouse', 'pod-b', 1, 9)", minute, minute);

        Trends.Picture picture = trends.read(Trends.Window.HOUR).await().indefinitely();

        assertThat(picture.stepMinutes()).isEqualTo(1);
        assertThat(chart(picture, "Callbacks").lines()).singleElement().satisfies(line -> {
            assertThat(line.label()).isEqualTo("wxpay new");
            assertThat(line.values()).hasSize(60).endsWith(9L);
        });
        assertThat(chart(picture, "Events waiting").lines()).singleElement()
                .satisfies(line -> assertThat(line.values()).endsWith(9L));
    }

    @Test
    void aSampleMissingFromAPointKeepsTheLevelBeforeAndACountMissingIsNone() {
        long minute = recorder.minute();
        db.update("INSERT INTO trend_minutes (minute, series, label, instance, seq, value) VALUES (?, 'dead_letters',"
                + " 'payment', 'pod-a', 1, 5), (?, 'processed', 'payment paid', 'pod-a', 1, 12)", minute - 3, minute - 3);

        Trends.Picture picture = trends.read(Trends.Window.HOUR).await().indefinitely();

        assertThat(chart(picture, "Dead letters").lines()).singleElement()
                .satisfies(line -> assertThat(line.values().subList(56, 60)).containsExactly(5L, 5L, 5L, 5L));
        assertThat(chart(picture, "Payments").lines()).singleElement()
                .satisfies(line -> assertThat(line.values().subList(56, 60)).containsExactly(12L, 0L, 0L, 0L));
    }

    @Test
    void deliveredTriesGiveEachDestinationsP50AndP99() {
        long minute = recorder.minute();
        recorder.count(TrendSeries.DELIVERY_LATENCY, "warehouse " + Trends.bucketLabel(40), 98);
        recorder.count(TrendSeries.DELIVERY_LATENCY, "warehouse " + Trends.bucketLabel(2_000), 2);
        recorder.flushBefore(minute + 2).await().indefinitely();

        Trends.Picture picture = trends.read(Trends.Window.HOUR).await().indefinitely();
        List<Trends.Line> lines = chart(picture, "Time from callback").lines();

        List<Trends.Line> warehouse = lines.stream().filter(line -> line.label().startsWith("warehouse ")).toList();
        assertThat(warehouse).extracting(Trends.Line::label).containsExactly("warehouse p50", "warehouse p99");
        assertThat(warehouse.get(0).values()).endsWith(50L);
        assertThat(warehouse.get(1).values()).endsWith(2_500L);
    }

    @Test
    void theApiAndTheConsoleDrawTheSameWindowsAndRefuseOthers() {
        Api.as(Api.ALICE_TOKEN).get("/admin/trends?hours=24").then().statusCode(200)
                .extract().jsonPath().getInt("stepMinutes");
        assertThat(Api.as(Api.ALICE_TOKEN).get("/admin/trends").then().statusCode(200).extract().jsonPath()
                .getString("window")).isEqualTo("SIX_HOURS");
        Api.as(Api.ALICE_TOKEN).get("/admin/trends?hours=2").then().statusCode(400);

        String cookie = given().redirects().follow(false).formParam("token", Api.ALICE_TOKEN).post("/admin/console/login")
                .then().extract().cookie(ConsoleSessions.COOKIE);
        String fragment = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/trends?hours=1").then()
                .statusCode(200).extract().asString();
        assertThat(fragment).contains("The last 1 h").contains("Callbacks per minute").contains("aria-pressed=\"true\"");
    }

    private static Trends.Chart chart(Trends.Picture picture, String titleStart) {
        return picture.charts().stream().filter(chart -> chart.title().startsWith(titleStart)).findFirst().orElseThrow();
    }
}
