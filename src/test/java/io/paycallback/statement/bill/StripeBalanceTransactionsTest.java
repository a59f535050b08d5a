package io.paycallback.statement.bill;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.stripe.model.BalanceTransaction;
import com.stripe.model.BalanceTransactionCollection;
import com.stripe.model.Charge;
import com.stripe.model.Refund;
import com.stripe.net.ApiResource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.paycallback.statement.bill.BillLine.Kind.PAYMENT;
import static io.paycallback.statement.bill.BillLine.Kind.REFUND;
import static io.paycallback.statement.bill.BillLine.State.FAILED;
import static io.paycallback.statement.bill.BillLine.State.PROCESSING;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class StripeBalanceTransactionsTest {

    /**
     * A page shaped as the API returns it with expand[]=data.source (field names per stripe-java's BalanceTransaction,
     * Charge and Refund): a card charge settled in USD from a EUR payment, a refund of it, and a partial-capture
     * reversal, which is a refund by type but not by reporting category.
     */
    static final String PAGE = """
            {
              "object": "list",
              "url": "/v1/balance_transactions",
              "has_more": true,
              "data": [
                {
                  "id": "txn_1", "object": "balance_transaction", "amount": 1085, "currency": "usd",
                  "exchange_rate": 1.08536, "fee": 62, "net": 1023, "reporting_category": "charge",
                  "status": "pending", "type": "charge",
                  "fee_details": [{"amount": 62, "currency": "usd", "type": "stripe_fee"}],
                  "source": {
                    "id": "ch_3Q", "object": "charge", "amount": 1000, "amount_captured": 1000, "currency": "eur",
                    "payment_intent": "pi_3Q", "metadata": {"out_trade_no": "ord-1"}, "status": "succeeded",
                    "billing_details": {"address": {"city": null}}
                  }
                },
                {
                  "id": "txn_2", "object": "balance_transaction", "amount": -434, "currency": "usd",
                  "reporting_category": "refund", "type": "refund",
                  "source": {
                    "id": "re_3Q", "object": "refund", "amount": 400, "currency": "eur", "charge": "ch_3Q",
                    "payment_intent": "pi_3Q", "metadata": {"out_refund_no": "rfd-1"}, "status": "pending"
                  }
                },
                {
                  "id": "txn_3", "object": "balance_transaction", "amount": -500, "currency": "usd",
                  "reporting_category": "partial_capture_reversal", "type": "refund",
                  "source": {
                    "id": "re_3R", "object": "refund", "amount": 500, "currency": "usd", "charge": "ch_3R",
                    "payment_intent": "pi_3R", "metadata": {}, "status": "succeeded"
                  }
                }
              ]
            }
            """;

    @Test
    void classifiesByReportingCategoryAndTakesTheSourcesAmount() throws Exception {
        List<BillLine> lines = new ArrayList<>();
        StripeBalanceTransactions.Page page = read(PAGE, lines);
        assertThat(page).isEqualTo(new StripeBalanceTransactions.Page(true, "txn_3", 3));
        assertThat(lines).containsExactly(
                new BillLine(PAYMENT, "ord-1", "pi_3Q", null, null, new BigDecimal("10.00"), "EUR", SUCCEEDED, 1),
                new BillLine(REFUND, null, "pi_3Q", "rfd-1", "re_3Q", new BigDecimal("4.00"), "EUR", PROCESSING, 2));
    }

    @Test
    void generatedPagesWithAllRefundStatesOtherCategoriesAndCrossCurrency() throws Exception {
        BillLine intent = new BillLine(PAYMENT, "o1", "pi_1", null, null, new BigDecimal("12.34"), "USD", SUCCEEDED, 0);
        BillLine bareCharge = new BillLine(PAYMENT, null, "ch_2", null, null, new BigDecimal("5.00"), "USD", SUCCEEDED, 0);
        BillLine yen = new BillLine(PAYMENT, "o3", "pi_3", null, null, new BigDecimal("1500.00"), "JPY", SUCCEEDED, 0);
        BillLine failed = new BillLine(REFUND, "o1", "pi_1", "r1", "re_1", new BigDecimal("2.00"), "USD", FAILED, 0);
        BillLine chargeRefund = new BillLine(REFUND, null, "ch_2", null, "re_2", new BigDecimal("5.00"), "USD",
                SUCCEEDED, 0);
        List<BillFiles.StripeItem> items = List.of(
                new BillFiles.StripeMovement(intent),
                new BillFiles.StripeOther("partial_capture_reversal", "refund", "re_9", -300, "usd"),
                new BillFiles.StripeMovement(bareCharge),
                new BillFiles.StripeMovement(yen, "USD", new BigDecimal("0.0067")),
                new BillFiles.StripeOther("payout", "payout", "po_1", -10000, "usd"),
                new BillFiles.StripeMovement(failed),
                new BillFiles.StripeMovement(chargeRefund));
        List<byte[]> pages = BillFiles.stripePages(items, 4);
        assertThat(pages).hasSize(2);
        List<BillLine> lines = new ArrayList<>();
        StripeBalanceTransactions.Page first = StripeBalanceTransactions.readPage(new ByteArrayInputStream(pages.get(0)),
                lines::add);
        StripeBalanceTransactions.Page second = StripeBalanceTransactions.readPage(new ByteArrayInputStream(pages.get(1)),
                lines::add);
        assertThat(first).isEqualTo(new StripeBalanceTransactions.Page(true, "txn_4", 4));
        assertThat(second).isEqualTo(new StripeBalanceTransactions.Page(false, "txn_7", 3));
        assertThat(lines).extracting(BillLine::providerTradeNo, BillLine::amount, BillLine::currency, BillLine::state)
                .containsExactly(
                        tuple("pi_1", new BigDecimal("12.34"), "USD", SUCCEEDED),
                        tuple("ch_2", new BigDecimal("5.00"), "USD", SUCCEEDED),
                        tuple("pi_3", new BigDecimal("1500.00"), "JPY", SUCCEEDED),
                        tuple("pi_1", new BigDecimal("2.00"), "USD", FAILED),
                        tuple("ch_2", new BigDecimal("5.00"), "USD", SUCCEEDED));
        assertThat(new String(pages.get(0), StandardCharsets.UTF_8)).contains("\"amount\":1005,\"currency\":\"usd\"");
    }

    @Test
    void stripeJavaReadsTheGeneratedPagesAsWeDo() {
        BillLine charge = new BillLine(PAYMENT, "o1", "pi_1", null, null, new BigDecimal("12.34"), "EUR", SUCCEEDED, 0);
        BillLine refund = new BillLine(REFUND, "o1", "pi_1", "r1", "re_1", new BigDecimal("2.00"), "EUR", PROCESSING, 0);
        byte[] page = BillFiles.stripePages(List.of(new BillFiles.StripeMovement(charge, "USD", new BigDecimal("1.1")),
                new BillFiles.StripeMovement(refund)), 10).get(0);
        for (String json : List.of(new String(page, StandardCharsets.UTF_8), PAGE)) {
            BalanceTransactionCollection sdk = ApiResource.GSON.fromJson(json, BalanceTransactionCollection.class);
            BalanceTransaction first = sdk.getData().get(0);
            assertThat(first.getReportingCategory()).isEqualTo("charge");
            Charge source = (Charge) first.getSourceObject();
            assertThat(source.getPaymentIntent()).startsWith("pi_");
            assertThat(source.getMetadata()).containsKey("out_trade_no");
            assertThat(source.getCurrency()).isEqualTo("eur");
            assertThat(first.getCurrency()).isEqualTo("usd");
            Refund sdkRefund = (Refund) sdk.getData().get(1).getSourceObject();
            assertThat(sdkRefund.getStatus()).isEqualTo("pending");
            assertThat(sdkRefund.getMetadata()).containsKey("out_refund_no");
            assertThat(sdkRefund.getCharge()).startsWith("ch_");
        }
    }

    @Test
    void refundStatuses() throws Exception {
        for (String[] status : new String[][]{{"succeeded", "SUCCEEDED"}, {"pending", "PROCESSING"},
                {"requires_action", "PROCESSING"}, {"failed", "FAILED"}, {"canceled", "FAILED"}}) {
            List<BillLine> lines = new ArrayList<>();
            read(PAGE.replace("\"status\": \"pending\"\n", "\"status\": \"" + status[0] + "\"\n"), lines);
            assertThat(lines.get(1).state().name()).as(status[0]).isEqualTo(status[1]);
        }
        assertThatThrownBy(() -> read(PAGE.replace("\"status\": \"pending\"\n", "\"status\": \"lost\"\n"),
                new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("transaction 2");
    }

    @Test
    void malformedPagesNameTheTransaction() {
        assertThatThrownBy(() -> read(PAGE.replace("\"amount\": 400,", "\"amount\": 4.5,"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("transaction 2");
        assertThatThrownBy(() -> read(PAGE.replace("\"amount\": 400,", "\"amount\": -400,"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("transaction 2");
        assertThatThrownBy(() -> read(PAGE.replace("\"currency\": \"eur\", \"charge\"", "\"currency\": \"xxq\", \"charge\""),
                new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("transaction 2");
        ObjectNode tree;
        try {
            tree = (ObjectNode) new ObjectMapper()
                    .readTree(PAGE);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        ((ObjectNode) tree.get("data").get(0)).put("source", "ch_3Q");
        String unexpanded = tree.toString();
        assertThat(unexpanded).isNotEqualTo(PAGE);
        assertThatThrownBy(() -> read(unexpanded, new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("expand");
        assertThatThrownBy(() -> read(PAGE.replace("\"has_more\": true,", ""), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("has_more");
        assertThatThrownBy(() -> read("{\"data\": [", new ArrayList<>())).isInstanceOf(BillException.Malformed.class);
    }

    @Test
    void emptyPage() throws Exception {
        assertThat(read("{\"object\":\"list\",\"data\":[],\"has_more\":false}", new ArrayList<>()))
                .isEqualTo(new StripeBalanceTransactions.Page(false, null, 0));
    }

    static StripeBalanceTransactions.Page read(String json, List<BillLine> into) throws Exception {
        return StripeBalanceTransactions.readPage(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
                into::add);
    }
}
