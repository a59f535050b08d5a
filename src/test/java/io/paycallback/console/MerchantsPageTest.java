package io.paycallback.console;

import io.paycallback.registry.Fingerprint;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Merchants pages over HTTP, as an operator uses them: a platform and its sub-merchant made through the forms,
 * listed with their keys by fingerprint and never a secret, a Stripe secret rotated, a merchant disabled and enabled
 * again, and each change in the owner's history under the operator's name.
 */
@QuarkusTest
class MerchantsPageTest {

    private static final Pattern CSRF = Pattern.compile("\"X-Console-Csrf\": \"([^\"]+)\"");
    private static final String OLD_SECRET = "whsec_consolePageOldSecret0123456789";
    private static final String NEW_SECRET = "whsec_consolePageNewSecret9876543210";
    private static final String API_KEY = "sk_test_consolePageApiKey0123456789";

    @Inject
    Pool pool;

    private Db db;
    private String cookie;
    private String csrf;

    @BeforeEach
    void signIn() {
        db = new Db(pool);
        cookie = ConsoleTest.login(Api.ALICE_TOKEN).cookie(ConsoleSessions.COOKIE);
        Matcher matcher = CSRF.matcher(page("/admin/console/merchants"));
        assertThat(matcher.find()).as("the page carries its CSRF token").isTrue();
        csrf = matcher.group(1);
    }

    private static String id(String prefix) {
        return Ids.unique(prefix).toLowerCase().substring(0, 20);
    }

    private String page(String path) {
        return given().cookie(ConsoleSessions.COOKIE, cookie).get(path).then().statusCode(200).extract().asString();
    }

    private RequestSpecification session() {
        return given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf);
    }

    /** A form posted as htmx posts it; the answer is the one line shown where the form was. */
    private String post(String path, Map<String, String> form) {
        return session().formParams(form).post("/admin/console/merchants/" + path).then().statusCode(200)
                .extract().asString();
    }

    private String post(String path) {
        return session().post("/admin/console/merchants/" + path).then().statusCode(200).extract().asString();
    }

    @Test
    void aPlatformAndItsSubMerchantAreMadeRotatedDisabledAndEnabledThroughTheConsole() {
        String platform = id("mkt");
        String merchant = id("shop");
        String account = "acct_" + Ids.unique("C");

        assertThat(post("create", Map.of("kind", "platform", "id", platform))).contains("class=\"done ok\"");
        assertThat(post("platform/" + platform + "/accounts/stripe", Map.of("webhookSecret", OLD_SECRET, "apiKey", API_KEY,
                "mchid", "", "apiV3Key", "", "appId", ""))).contains("class=\"done ok\"");
        assertThat(post("create", Map.of("kind", "merchant", "id", merchant))).contains("class=\"done ok\"");
        assertThat(post("merchant/" + merchant + "/accounts/stripe", Map.of("mode", "sub-merchant", "platform", platform,
                "subId", account))).contains("class=\"done ok\"");
        assertThat(post("merchant/" + merchant + "/accounts/stripe", Map.of("mode", "sub-merchant", "platform", platform,
                "subId", "not-an-account"))).as("refused, naming the field").contains("class=\"done fail\"")
                .contains("account");

        String list = page("/admin/console/merchants");
        assertThat(list).contains(platform, merchant, account, Fingerprint.of(OLD_SECRET), Fingerprint.of(API_KEY))
                .contains("/admin/console/merchants/platform/" + platform + "/disable")
                .doesNotContain(OLD_SECRET).doesNotContain(API_KEY);
        assertThat(list).as("what properties declare is listed without a button")
                .contains("owner-merchant-default").doesNotContain("/admin/console/merchants/merchant/default/disable");

        // Rotation: the new secret beside the old one, then the old one retired.
        assertThat(post("platform/" + platform + "/accounts/stripe/keys", Map.of("value", NEW_SECRET)))
                .contains("class=\"done ok\"");
        assertThat(post("platform/" + platform + "/accounts/stripe/keys/retire",
                Map.of("serial", Fingerprint.of(OLD_SECRET), "at", ""))).contains("class=\"done ok\"");
        assertThat(post("platform/" + platform + "/accounts/stripe/keys/retire",
                Map.of("serial", Fingerprint.of(NEW_SECRET), "at", ""))).as("the last live key stays")
                .contains("class=\"done fail\"");
        String platformPage = page("/admin/console/merchants/platform/" + platform);
        assertThat(platformPage).contains(Fingerprint.of(NEW_SECRET), "retired", "live")
                .doesNotContain(OLD_SECRET).doesNotContain(NEW_SECRET).doesNotContain(API_KEY);

        assertThat(post("merchant/" + merchant + "/disable")).contains("class=\"done ok\"");
        assertThat(page("/admin/console/merchants")).containsPattern("owner-merchant-" + merchant + "\">.*\\n.*disabled");
        assertThat(post("merchant/" + merchant + "/disable")).as("disabled already").contains("class=\"done fail\"");
        assertThat(post("merchant/" + merchant + "/enable")).contains("class=\"done ok\"");
        assertThat(page("/admin/console/merchants/merchant/" + merchant)).contains("id=\"owner-state\"><span class=\"ok\">enabled");

        String history = page("/admin/console/merchants/platform/" + platform);
        assertThat(history).contains("platform.create", "account.put", "key.add", "key.retire", "alice");
        assertThat(page("/admin/console/merchants/merchant/" + merchant))
                .contains("merchant.create", "account.put", "merchant.disable", "merchant.enable").doesNotContain(OLD_SECRET);
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'alice' AND action = 'registry_change'"
                + " AND target LIKE ?", "merchant:" + merchant + "%")).isEqualTo(4);
    }

    @Test
    void aChangeNeedsTheSessionsCsrfTokenAndAnEntryFromPropertiesIsReadOnly() {
        String merchant = id("csrf");
        given().cookie(ConsoleSessions.COOKIE, cookie).formParam("kind", "merchant").formParam("id", merchant)
                .post("/admin/console/merchants/create").then().statusCode(403);
        assertThat(db.count("SELECT COUNT(*) FROM registry_owners WHERE id = ?", merchant)).isZero();

        assertThat(page("/admin/console/merchants/merchant/default")).contains("read-only here")
                .doesNotContain("Save an account").doesNotContain("/admin/console/merchants/merchant/default/disable");
        assertThat(post("merchant/default/disable")).contains("class=\"done fail\"");
        assertThat(post("create", Map.of("kind", "shop", "id", merchant))).contains("class=\"done fail\"");
    }
}
