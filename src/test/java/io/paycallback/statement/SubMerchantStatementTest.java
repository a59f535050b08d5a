package io.paycallback.statement;

import io.paycallback.lease.Scanner;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.statement.bill.BillLine;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.Providers;
import io.paycallback.trade.ChannelId;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static io.paycallback.statement.StatementLedger.noon;
import static io.paycallback.statement.StatementLedger.payment;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static io.paycallback.testsupport.ProviderKeys.ACCOUNT_A;
import static io.paycallback.testsupport.ProviderKeys.AUTH_APP_A;
import static io.paycallback.testsupport.ProviderKeys.SHOP_A;
import static io.paycallback.testsupport.ProviderKeys.SHOP_B;
import static io.paycallback.testsupport.ProviderKeys.SUB_MCHID_B;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Statement runs of a platform's sub-merchants: a run per sub-merchant, reading the bill the provider keeps for that
 * sub-merchant through the platform's API, compared with that merchant's ledger only.
 */
@QuarkusTest
@TestProfile(Platforms.class)
class SubMerchantStatementTest {

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    StatementSchedule schedule;

    private Db db;
    private StatementLedger ledger;
    private final Providers providers = new Providers();

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        ledger = new StatementLedger(db);
        providers.reset();
    }

    @AfterEach
    void providersBackToNormal() {
        providers.reset();
    }

    /**
     * A Connect platform's sub-merchant: its run reads the connected account's balance ({@code Stripe-Account}) and
     * compares it with that merchant's ledger only; the direct merchant's run of the day sees none of it.
     */
    @Test
    void aConnectedAccountsRunReadsThatAccountsBalanceForItsMerchant() {
        ChannelId stripe = ChannelId.STRIPE;
        LocalDate date = ledger.freshDate(stripe);
        List<BillLine> lines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String order = Ids.unique("CO");
            ledger.paid(SHOP_A, stripe, order, "pi_" + order, "19.99", "USD", noon(stripe, date));
            lines.add(payment(order, "pi_" + order, "19.99", "USD", SUCCEEDED));
        }
        String unknown = "pi_" + Ids.unique("CX");
        lines.add(payment(null, unknown, "5.00", "USD", SUCCEEDED));
        providers.stripeBill(ACCOUNT_A, date, StatementLedger.stripe(lines));

        schedule.enrol(stripe, date);
        Row run = StatementLedger.drained(scanner, db, () -> runRow(SHOP_A, stripe, date));
        Row direct = runRow(StatementLedger.MERCHANT, stripe, date);

        assertThat(run.getLong("bill_payment_count")).isEqualTo(4);
        assertThat(run.getLong("our_payment_count")).isEqualTo(3);
        assertThat(found(run)).containsExactly("NOT_REGISTERED PAYMENT " + unknown + " OPEN");
        assertThat(providers.requestsFor("stripe", "bill", ACCOUNT_A + "/" + date)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(direct.getLong("bill_payment_count")).isZero();
        assertThat(direct.getLong("our_payment_count")).isZero();
    }

    /** A WeChat Pay partner's sub-merchant: the partner asks for the bill naming {@code sub_mchid}, for that merchant. */
    @Test
    void aPartnersSubMerchantRunReadsTheBillOfThatSubMerchantForItsMerchant() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        String matched = Ids.unique("PM");
        String different = Ids.unique("PD");
        ledger.paid(SHOP_B, wx, matched, "4200" + matched, "88.00", "CNY", noon(wx, date));
        ledger.paid(SHOP_B, wx, different, "4200" + different, "10.00", "CNY", noon(wx, date));
        BillFiles.WxFile file = BillFiles.wxPay(List.of(
                payment(matched, "4200" + matched, "88.00", "CNY", SUCCEEDED),
                payment(different, "4200" + different, "11.00", "CNY", SUCCEEDED)), BillFiles.WxOptions.standard());
        providers.bill("wxpay", SUB_MCHID_B, date, "ok", file.gzip(), file.sha1Hex());

        schedule.enrol(wx, date);
        Row run = StatementLedger.drained(scanner, db, () -> runRow(SHOP_B, wx, date));

        assertThat(run.getString("file_digest")).isEqualTo("sha1:" + file.sha1Hex());
        assertThat(run.getLong("bill_payment_count")).isEqualTo(2);
        assertThat(run.getLong("our_payment_count")).isEqualTo(2);
        assertThat(found(run)).containsExactly("AMOUNT_DIFFERS PAYMENT 4200" + different + " OPEN");
        assertThat(providers.requestsFor("wxpay", "bill", SUB_MCHID_B + "/" + date)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("wxpay", "bill-download", SUB_MCHID_B + "/" + date)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }

    /** An Alipay third-party app's authorising merchant: the bill asked for with that merchant's app_auth_token. */
    @Test
    void anAuthorisingMerchantsRunReadsItsBillThroughTheApp() {
        ChannelId alipay = ChannelId.ALIPAY;
        LocalDate date = ledger.freshDate(alipay);
        String matched = Ids.unique("AM");
        String missing = Ids.unique("AX");
        ledger.paid(SHOP_A, alipay, matched, "2026" + matched, "88.00", "CNY", noon(alipay, date));
        ledger.paid(SHOP_A, alipay, missing, "2026" + missing, "5.00", "CNY", noon(alipay, date));
        providers.bill("alipay", AUTH_APP_A, date, "ok", BillFiles.alipay(List.of(
                payment(matched, "2026" + matched, "88.00", "CNY", SUCCEEDED)), BillFiles.AlipayOptions.standard()), null);

        schedule.enrol(alipay, date);
        Row run = StatementLedger.drained(scanner, db, () -> runRow(SHOP_A, alipay, date));

        assertThat(run.getLong("bill_payment_count")).isEqualTo(1);
        assertThat(run.getLong("our_payment_count")).isEqualTo(2);
        assertThat(found(run)).containsExactly("MISSING_AT_PROVIDER PAYMENT 2026" + missing + " OPEN");
        assertThat(providers.requestsFor("alipay", "bill", AUTH_APP_A + "/" + date)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }

    private Row runRow(String merchantId, ChannelId channel, LocalDate date) {
        return db.first("SELECT id, state, status, retry_count, file_digest, bill_payment_count, our_payment_count"
                + " FROM statement_runs WHERE merchant_id = ? AND channel = ? AND bill_date = ?",
                merchantId, channel.path(), date);
    }

    /** Each discrepancy of the run as {@code KIND ITEM ident STATE}. */
    private Set<String> found(Row run) {
        return db.rows("SELECT kind, item, ident, state FROM statement_discrepancies WHERE run_id = ?", run.getLong("id"))
                .stream().map(row -> row.getString("kind") + " " + row.getString("item") + " " + row.getString("ident")
                        + " " + row.getString("state")).collect(Collectors.toSet());
    }
}
