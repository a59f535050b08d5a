package io.paycallback.console;

import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Keycloak;
import io.paycallback.testsupport.WithKeycloak;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's sign-in through Keycloak in Debian's headless Chromium, on Keycloak's own login page: an operator
 * signs in, requeues a dead letter, finds it in the audit log under their Keycloak user name and signs out, which ends
 * the Keycloak session too (the next sign-in asks for the password again); a viewer signs in, sees the same order
 * without any action on it, and signs out. Screenshots go to target/console-screenshots.
 */
@QuarkusTest
@TestProfile(WithKeycloak.class)
class ProviderSignInBrowserTest {

    @TestHTTPResource("/admin/console")
    URL console;

    @Inject
    Pool pool;

    private Db db;
    private WebDriver browser;
    private WebDriverWait wait;
    private Path profile;

    @BeforeEach
    void startBrowser() throws IOException {
        Keycloak.assumeRunning();
        assertThat(Path.of(ConsoleBrowserTest.CHROMIUM)).as("apt-get install chromium chromium-driver (.ci/run does)").exists();
        db = new Db(pool);
        Files.createDirectories(ConsoleBrowserTest.SHOTS);
        profile = Files.createTempDirectory("console-chromium");
        browser = ConsoleBrowserTest.chromium(profile);
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
    }

    @AfterEach
    void stopBrowser() throws IOException {
        if (browser != null) {
            screenshot("provider-last");
            Files.writeString(ConsoleBrowserTest.SHOTS.resolve("provider-last.html"),
                    browser.getCurrentUrl() + "\n" + browser.getPageSource());
            browser.quit();
        }
        if (profile != null) {
            ConsoleBrowserTest.deleteProfile(profile);
        }
    }

    @Test
    void anOperatorSignsInAtKeycloakActsIsAuditedByNameAndSignsOutOfBoth() throws IOException {
        String tradeNo = Ids.unique("4200");
        long id = deadPayment(tradeNo);

        signIn(Keycloak.OPERATOR);
        assertThat(browser.findElement(By.className("who")).getText()).contains(Keycloak.OPERATOR);
        assertThat(browser.findElements(By.id("read-only"))).isEmpty();
        screenshot("provider-1-operator-overview");

        findByTrade(tradeNo);
        browser.findElement(By.cssSelector("#act-payment-" + id + " .requeue")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("act-payment-" + id), "requeued"));

        browser.findElement(By.linkText("Audit log")).click();
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("audit"))).getText())
                .contains(Keycloak.OPERATOR + " requeue 1 pay_callback_log#" + id);
        screenshot("provider-2-audit");

        signOut();
        // Keycloak's session ended too: signing in again asks for the password rather than passing straight through.
        browser.findElement(By.id("sign-in-provider")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("password")));
        assertThat(browser.getCurrentUrl()).startsWith(Keycloak.issuer());
    }

    @Test
    void aViewerSeesTheSameOrderWithoutAnyActionAndSignsOut() throws IOException {
        String tradeNo = Ids.unique("4200");
        long id = deadPayment(tradeNo);

        signIn(Keycloak.VIEWER);
        assertThat(browser.findElement(By.id("read-only")).getText()).contains("read only");
        findByTrade(tradeNo);
        assertThat(browser.findElement(By.id("cb-payment-" + id)).getText()).contains("dead");
        assertThat(browser.findElement(By.cssSelector("#act-payment-" + id + " .show-body")).isDisplayed()).isTrue();
        assertThat(browser.findElement(By.cssSelector("#act-payment-" + id + " .requeue")).isDisplayed()).isFalse();
        assertThat(browser.findElement(By.cssSelector("#act-payment-" + id + " .replay")).isDisplayed()).isFalse();
        screenshot("provider-3-viewer-timeline");

        browser.findElement(By.linkText("Dead letters")).click();
        wait.until(ExpectedConditions.urlContains("/admin/console/dead"));
        assertThat(browser.findElements(By.cssSelector(".requeue")).stream().noneMatch(button -> button.isDisplayed()))
                .as("no requeue offered").isTrue();

        signOut();
        browser.get(console + "/dead");
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
        assertThat(db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status")).isEqualTo(2);
    }

    /** Through the console's button and Keycloak's own login form, back to the console's overview. */
    private void signIn(String user) {
        browser.get(console.toString());
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
        browser.findElement(By.id("sign-in-provider")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("username"))).sendKeys(user);
        assertThat(browser.getCurrentUrl()).startsWith(Keycloak.issuer());
        browser.findElement(By.id("password")).sendKeys(Keycloak.password(user));
        browser.findElement(By.id("kc-login")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dead-total")));
    }

    private void signOut() {
        browser.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("sign-in-provider")));
        browser.get(console.toString());
        wait.until(ExpectedConditions.urlContains("/admin/console/login"));
    }

    private void findByTrade(String tradeNo) {
        browser.findElement(By.linkText("Search")).click();
        new Select(browser.findElement(By.name("by"))).selectByValue("trade");
        browser.findElement(By.id("q")).sendKeys(tradeNo);
        browser.findElement(By.id("search")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("timeline")));
    }

    private long deadPayment(String tradeNo) {
        String outTradeNo = Ids.unique("KCW");
        db.update("""
                INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at, updated_at)
                VALUES ('default', ?, 3.21, 'CNY', 'PENDING', 0, NOW(3), NOW(3))""", outTradeNo);
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, 'SUCCESS', 3.21, 'CNY', 2, 8, NOW(3), 'order unknown then', '{}',
                        NOW(3), NOW(3))""", tradeNo, outTradeNo);
        return db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo).getLong("id");
    }

    private void screenshot(String name) throws IOException {
        Files.write(ConsoleBrowserTest.SHOTS.resolve(name + ".png"),
                ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
