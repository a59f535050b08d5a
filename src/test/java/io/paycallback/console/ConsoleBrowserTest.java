package io.paycallback.console;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.TrendSeries;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console in Debian's headless Chromium, as an operator uses it at 2 a.m.: sign in, find the order whose payment
 * callback died by the provider's trade number, read its hostile body as text, requeue it, and see the order paid.
 * Screenshots go to target/console-screenshots. Selenium gets Debian's chromedriver by path, so Selenium Manager is
 * never asked to download anything.
 */
@QuarkusTest
class ConsoleBrowserTest {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    static final Path SHOTS = Path.of("target/console-screenshots");
    static final String HOSTILE = "{\"note\":\"<script>window.pwned=1</script><b>not bold</b>\"}";

    @TestHTTPResource("/admin/console")
    URL console;

    @Inject
    Pool pool;
    @Inject
    TrendRecorder trends;

    private Db db;
    private WebDriver browser;
    private WebDriverWait wait;
    private Path profile;

    @BeforeEach
    void startBrowser() throws IOException {
        assertThat(Path.of(CHROMIUM)).as("apt-get install chromium chromium-driver (.ci/run does)").exists();
        assertThat(Path.of(CHROMEDRIVER)).as("apt-get install chromium-driver (.ci/run does)").exists();
        db = new Db(pool);
        Files.createDirectories(SHOTS);
        profile = Files.createTempDirectory("console-chromium");
        browser = chromium(profile);
        wait = new WebDriverWait(browser, Duration.ofSeconds(15));
    }

    @AfterEach
    void stopBrowser() throws IOException {
        if (browser != null) {
            // What the browser last showed, for a failure's post-mortem.
            screenshot("last");
            Files.writeString(SHOTS.resolve("last.html"), browser.getCurrentUrl() + "\n" + browser.getPageSource());
            browser.quit();
        }
        deleteProfile(profile);
    }

    /** Debian's headless Chromium at 1280 × 900 through Debian's chromedriver, with a profile of its own. */
    static WebDriver chromium(Path profile) {
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    static void deleteProfile(Path profile) throws IOException {
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }

    @Test
    void anOperatorFindsADeadLetterReadsItsBodyAsTextRequeuesItAndSeesTheOrderPaid() throws IOException {
        String outTradeNo = Ids.unique("WEB");
        String tradeNo = Ids.unique("4200");
        db.update("""
                INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
                VALUES ('default', ?, 12.34, 'CNY', 'PENDING', 0, NOW(3), NOW(3))""", outTradeNo);
        // Died while the order was unknown (it arrived before the order service registered it).
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, 'SUCCESS', 12.34, 'CNY', 2, 8, NOW(3), ?, ?, NOW(3), NOW(3))""",
                tradeNo, outTradeNo, "NotYetSettledException: order " + outTradeNo + " is unknown", HOSTILE);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo).getLong("id");

        browser.get(console.toString());
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
        browser.findElement(By.id("token")).sendKeys(Api.ORDER_SERVICE_TOKEN);
        browser.findElement(By.id("sign-in")).click();
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-error"))).getText())
                .contains("not an operator token");
        browser.findElement(By.id("token")).sendKeys(Api.ALICE_TOKEN);
        browser.findElement(By.id("sign-in")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dead-total")));
        assertThat(Long.parseLong(browser.findElement(By.id("dead-total")).getText())).isPositive();
        screenshot("1-overview");

        browser.findElement(By.linkText("Search")).click();
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.name("by"))).selectByValue("trade");
        browser.findElement(By.id("q")).sendKeys(tradeNo);
        browser.findElement(By.id("search")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("timeline")));
        assertThat(browser.findElement(By.id("order-status")).getText()).isEqualTo("PENDING");
        WebElement row = browser.findElement(By.id("cb-payment-" + id));
        assertThat(row.getText()).contains("dead").contains("is unknown");

        row.findElement(By.className("show-body")).click();
        WebElement body = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#body-payment-" + id + " pre")));
        assertThat(body.getText()).as("the body as the provider sent it, as text").isEqualTo(HOSTILE);
        assertThat(body.findElements(By.tagName("script"))).as("no element made of the body").isEmpty();
        assertThat(body.findElements(By.tagName("b"))).isEmpty();
        assertThat(((JavascriptExecutor) browser).executeScript("return window.pwned === undefined")).isEqualTo(true);
        screenshot("2-timeline-with-hostile-body");

        browser.findElement(By.cssSelector("#act-payment-" + id + " .requeue")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("act-payment-" + id), "requeued"));
        screenshot("3-requeued");

        // The requeue handed the row to a worker: the order becomes PAID, the callback done, and its event is
        // delivered to the test profile's sink, attempt by attempt.
        wait.withTimeout(Duration.ofSeconds(30)).until(driver -> {
            driver.navigate().refresh();
            return driver.findElement(By.id("order-status")).getText().equals("PAID")
                    && driver.findElement(By.id("timeline")).getText().contains("delivered");
        });
        assertThat(browser.findElement(By.id("cb-payment-" + id)).getText()).contains("done");
        assertThat(browser.findElement(By.id("timeline")).getText()).contains("PAID via wxpay " + tradeNo)
                .contains("order.paid");
        screenshot("4-paid");

        browser.manage().window().setSize(new Dimension(390, 844));
        browser.navigate().refresh();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("timeline")));
        assertThat(((JavascriptExecutor) browser).executeScript(
                "return document.documentElement.scrollWidth <= window.innerWidth + 1"))
                .as("on a phone the page does not scroll sideways; wide tables scroll in their own box").isEqualTo(true);
        screenshot("5-timeline-on-a-phone");
        browser.manage().window().setSize(new Dimension(1280, 900));

        browser.findElement(By.linkText("Audit log")).click();
        WebElement audit = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("audit")));
        assertThat(audit.getText()).contains("alice requeue 1 pay_callback_log#" + id);
        screenshot("6-audit");
    }

    @Test
    void aBulkRequeueCountsFirstThenRequeuesWhatItCounted() throws IOException {
        String merchant = Ids.unique("M");
        for (int i = 0; i < 3; i++) {
            db.update("""
                    INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                        currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                    VALUES (?, 'alipay', ?, 'ORD-NIGHT', 'TRADE_SUCCESS', 1.00, 'CNY', 2, 8, NOW(3), 'warehouse answered 503', '',
                            NOW(3), NOW(3))""", merchant, Ids.unique("T"));
        }
        signIn(Api.BOB_TOKEN);
        browser.findElement(By.linkText("Bulk requeue")).click();
        browser.findElement(By.id("bulk-merchant")).sendKeys(merchant);
        browser.findElement(By.id("bulk-error")).sendKeys("503");
        browser.findElement(By.id("dry-run-button")).click();
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("matched"))).getText()).isEqualTo("3");
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE merchant_id = ? AND status = 2", merchant))
                .as("the dry run changed nothing").isEqualTo(3);
        screenshot("7-bulk-dry-run");

        browser.findElement(By.id("apply-button")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("bulk-result"), "requeued 3 of the 3"));
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE merchant_id = ? AND status = 2", merchant)).isZero();
        screenshot("8-bulk-applied");

        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
        browser.get(console + "/bulk");
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
    }

    @Test
    void anOperatorResolvesAStatementDiscrepancyWithANote() throws IOException {
        String merchant = Ids.unique("M");
        String trade = Ids.unique("2026");
        long id = openDiscrepancy(statementRun(merchant), merchant, trade);

        signIn(Api.ALICE_TOKEN);
        browser.findElement(By.linkText("Statements")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("statement-discrepancies")));
        assertThat(browser.findElement(By.id("d-" + id)).findElement(By.xpath("..")).getText())
                .contains("not_registered").contains(trade).contains("0.01 CNY SUCCEEDED");
        browser.findElement(By.id("note-" + id)).sendKeys("the shop owner's test payment, refunded in the portal");
        screenshot("9-statement-discrepancy");
        browser.findElement(By.id("resolve-" + id)).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("d-" + id), "resolved"));
        screenshot("10-statement-resolved");

        var resolved = db.first("SELECT state, note, resolved_by FROM statement_discrepancies WHERE id = ?", id);
        assertThat(resolved.getString("state")).isEqualTo("RESOLVED");
        assertThat(resolved.getString("note")).isEqualTo("the shop owner's test payment, refunded in the portal");
        assertThat(resolved.getString("resolved_by")).isEqualTo("alice");
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'alice' AND action = 'statement_resolve'"
                + " AND target LIKE ?", "statement_discrepancies#" + id + ":%")).isEqualTo(1);
    }

    @Test
    void theFirstScreenNamesEveryProblemAndLinksToWhereItIsFixed() throws IOException {
        String tradeNo = Ids.unique("4200");
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, 'ORD-FIRST-SCREEN', 'SUCCESS', 1.00, 'CNY', 2, 8, NOW(3),
                        'amount mismatch: order 2.00 CNY, callback 1.00 CNY', '', NOW(3), NOW(3))""", tradeNo);
        String merchant = Ids.unique("M");
        long run = statementRun(merchant);
        String differing = Ids.unique("2026");
        openDiscrepancy(run, merchant, differing);
        String bodyHash = String.format("%064x", new java.math.BigInteger(1, Ids.unique("Q").getBytes()));
        db.update("""
                INSERT INTO quarantine (merchant_id, channel, kind, reason, body_hash, body_length, raw_body, created_at)
                VALUES ('default', 'alipay', 'PAYMENT', 'missing total_amount', ?, 2, '{}', NOW(3))""", bodyHash);
        Api.as(Api.ALICE_TOKEN).post("/admin/destinations/sink/disable").then().statusCode(200);
        try {
            // As the breaker leaves it after a refused connection: open, its events parked, the next probe far off.
            db.update("""
                    UPDATE destination_circuits SET state = 1, since = NOW(3), next_probe_at = DATE_ADD(NOW(3), INTERVAL 1 DAY),
                        reason = 'connection refused — AnnotatedConnectException: finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:9'
                    WHERE destination = 'sink'""");
            db.update("""
                    INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
                                        next_retry_at, lease_token, created_at, updated_at)
                    VALUES (?, 'order.paid', 'sink', 'default', 'ORD-FIRST-SCREEN', '{"type":"order.paid"}', 0, 0,
                            DATE_ADD(NOW(3), INTERVAL 1 HOUR), 'parked', DATE_SUB(NOW(3), INTERVAL 20 MINUTE), NOW(3))""",
                    Ids.unique("first-screen"));

            // A minute of callbacks, written as the minute's end would write it: the charts have lines to draw.
            trends.count(TrendSeries.CALLBACKS, "wxpay new", 40);
            trends.count(TrendSeries.CALLBACKS, "alipay duplicate", 12);
            trends.flushBefore(trends.minute() + 2).await().indefinitely();
            signIn(Api.ALICE_TOKEN);
            assertThat(wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#trends figure"), 6)))
                    .as("six charts, the callbacks' drawn").first().satisfies(chart ->
                            assertThat(chart.findElements(By.tagName("polyline"))).isNotEmpty());
            WebElement attention = browser.findElement(By.id("attention"));
            assertThat(attention.findElements(By.tagName("li"))).extracting(WebElement::getText)
                    .anySatisfy(item -> assertThat(item).startsWith("destination sink is open (connection refused):")
                            .contains("waiting, the oldest since"))
                    .anySatisfy(item -> assertThat(item).contains("payment dead letter").endsWith("to replay, requeue or resolve"))
                    .anySatisfy(item -> assertThat(item).contains("statement difference").contains(" open, the oldest for"))
                    .anySatisfy(item -> assertThat(item).contains("signed callback").endsWith("held in quarantine"));
            assertThat(attention.getText()).as("the raw exception stays off the first screen")
                    .doesNotContain("AnnotatedConnectException");
            assertThat(browser.findElements(By.id("all-clear"))).isEmpty();
            screenshot("11-needs-a-person");

            attention.findElement(By.partialLinkText("destination sink is open")).click();
            WebElement sink = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("destination-sink")));
            assertThat(sink.getText()).contains("open").contains("connection refused").doesNotContain("finishConnect");
            sink.findElement(By.tagName("summary")).click();
            assertThat(sink.getText()).as("the detail, on demand").contains("finishConnect(..) failed");
            assertThat(((JavascriptExecutor) browser).executeScript(
                    "return document.documentElement.scrollWidth <= window.innerWidth + 1"))
                    .as("at 1280 pixels the page does not scroll sideways").isEqualTo(true);
            screenshot("12-destination-open");
        } finally {
            Api.as(Api.ALICE_TOKEN).post("/admin/destinations/sink/enable").then().statusCode(200);
            db.update("DELETE FROM quarantine WHERE body_hash = ?", bodyHash);
        }
    }

    private long statementRun(String merchant) {
        String date = "2003-0" + (1 + (int) (Math.random() * 9)) + "-1" + (int) (Math.random() * 9);
        db.update("""
                INSERT INTO statement_runs (merchant_id, channel, bill_date, state, compared_at, status, retry_count,
                                            next_retry_at, created_at, updated_at)
                VALUES (?, 'alipay', ?, 'DIFFERENCES', NOW(3), 1, 0, NOW(3), NOW(3), NOW(3))""", merchant, date);
        return db.first("SELECT id FROM statement_runs WHERE merchant_id = ?", merchant).getLong("id");
    }

    private long openDiscrepancy(long run, String merchant, String trade) {
        db.update("""
                INSERT INTO statement_discrepancies (run_id, merchant_id, channel, bill_date, kind, item, ident, out_trade_no,
                    trade_no, bill_amount, bill_currency, bill_state, state, opened_at, created_at, updated_at)
                SELECT id, merchant_id, channel, bill_date, 'NOT_REGISTERED', 'PAYMENT', ?, 'SHOP-TEST-1', ?, 0.01, 'CNY',
                       'SUCCEEDED', 'OPEN', NOW(3), NOW(3), NOW(3)
                FROM statement_runs WHERE id = ? AND merchant_id = ?""", trade, trade, run, merchant);
        return db.first("SELECT id FROM statement_discrepancies WHERE ident = ?", trade).getLong("id");
    }

    private void signIn(String token) {
        browser.get(console.toString());
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(token);
        browser.findElement(By.id("sign-in")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dead-total")));
    }

    private void screenshot(String name) throws IOException {
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
