package io.paycallback.platform;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner.SubOrder;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A direct merchant's combine payment (合单支付): one notice pays several orders, each stored, reserved and moved on its
 * own, so a repeated push is a duplicate for each and a sub-order for another amount is that order's dead letter only.
 */
@QuarkusTest
class WxPayCombineTest extends AgainstPlatforms {

    private SignedCallback combine(String combineOutTradeNo, List<SubOrder> subOrders) {
        ProviderKeys keys = ProviderKeys.fromConfig();
        return signer.wxCombine(keys.apiV3Key(), keys.wxMchid(), combineOutTradeNo, subOrders, Instant.now());
    }

    private SubOrder sub(String outTradeNo, String transactionId, String tradeState, long fen) {
        return new SubOrder(ProviderKeys.fromConfig().wxMchid(), null, outTradeNo, transactionId, tradeState, fen);
    }

    @Test
    void threeSubOrdersPushedTwiceAtOnceArePaidOnceEach() throws Exception {
        List<String> orders = List.of(newOrder("10.00", "CNY"), newOrder("20.00", "CNY"), newOrder("30.00", "CNY"));
        List<String> transactions = List.of(Ids.unique("42000"), Ids.unique("42000"), Ids.unique("42000"));
        SignedCallback callback = combine(Ids.unique("CMB"), List.of(sub(orders.get(0), transactions.get(0), "SUCCESS", 1000),
                sub(orders.get(1), transactions.get(1), "SUCCESS", 2000), sub(orders.get(2), transactions.get(2), "SUCCESS", 3000)));

        List<Integer> statuses = Concurrently.times(2, () -> Send.payment(callback).statusCode());

        assertThat(statuses).containsOnly(200);
        for (String order : orders) {
            await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(order)));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", transactions.get(i)))
                    .isEqualTo(1);
            String order = orders.get(i);
            await().atMost(WAIT).until(() -> events("order.paid", order) == 1);
        }
        assertThat(orders.stream().mapToLong(order -> events("order.paid", order)).sum()).isEqualTo(3);
    }

    @Test
    void aSubOrderForAnotherAmountIsThatOrdersDeadLetterAndTheOthersArePaid() {
        List<String> orders = List.of(newOrder("10.00", "CNY"), newOrder("20.00", "CNY"), newOrder("30.00", "CNY"));
        String wrong = Ids.unique("42000");
        Send.payment(combine(Ids.unique("CMB"), List.of(sub(orders.get(0), Ids.unique("42000"), "SUCCESS", 1000),
                sub(orders.get(1), wrong, "SUCCESS", 2500), sub(orders.get(2), Ids.unique("42000"), "SUCCESS", 3000))))
                .then().statusCode(200);

        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(orders.get(0))) && "PAID".equals(Api.orderStatus(orders.get(2))));
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE channel_trade_no = ?", wrong)
                .getInteger("status") == 2);
        assertThat(db.first("SELECT last_error FROM pay_callback_log WHERE channel_trade_no = ?", wrong)
                .getString("last_error")).contains("amount mismatch");
        assertThat(Api.orderStatus(orders.get(1))).isEqualTo("PENDING");
        assertThat(events("order.paid", orders.get(1))).isZero();

        // An operator's replay reads the row's own sub-order out of the whole notice it keeps.
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", wrong).getLong("id");
        Api.as(Api.ALICE_TOKEN).post("/admin/callbacks/payment/" + id + "/replay").then().statusCode(202);
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE id = ?", id)
                .getInteger("status") == 2);
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE action = 'replay' AND target = ?",
                "pay_callback_log#" + id)).isEqualTo(1);
    }

    /** A combine held in quarantine (its format unread then) is stored order by order once replayed. */
    @Test
    void aHeldCombineIsStoredOrderByOrderWhenReplayed() throws Exception {
        List<String> orders = List.of(newOrder("10.00", "CNY"), newOrder("20.00", "CNY"));
        byte[] body = combine(Ids.unique("CMB"), List.of(sub(orders.get(0), Ids.unique("42000"), "SUCCESS", 1000),
                sub(orders.get(1), Ids.unique("42000"), "SUCCESS", 2000))).body();
        String hash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body));
        pool.preparedQuery("INSERT INTO quarantine (merchant_id, channel, kind, reason, body_hash, body_length, raw_body,"
                        + " created_at) VALUES ('default', 'wxpay', 'PAYMENT', 'combine notices were not read', ?, ?, ?, NOW(3))")
                .execute(io.vertx.mutiny.sqlclient.Tuple.of(hash, body.length, io.vertx.mutiny.core.buffer.Buffer.buffer(body)))
                .await().indefinitely();
        long id = db.first("SELECT id FROM quarantine WHERE body_hash = ?", hash).getLong("id");

        Api.as(Api.ALICE_TOKEN).post("/admin/quarantine/" + id + "/replay").then().statusCode(202);
        scanner.drain(CallbackTable.PAYMENT.leased());

        for (String order : orders) {
            await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(order)));
        }
    }

    @Test
    void aSubOrderNotPaidIsNotStoredAndTheOthersAre() {
        String paid = newOrder("10.00", "CNY");
        String unpaid = newOrder("20.00", "CNY");
        String unpaidTransaction = Ids.unique("42000");
        Send.payment(combine(Ids.unique("CMB"), List.of(sub(paid, Ids.unique("42000"), "SUCCESS", 1000),
                sub(unpaid, unpaidTransaction, "NOTPAY", 2000)))).then().statusCode(200);

        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(paid)));
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", unpaidTransaction)).isZero();
        assertThat(Api.orderStatus(unpaid)).isEqualTo("PENDING");
    }

    /**
     * An order registered with its combine, whose notice never came: WeChat Pay answers for it only through its
     * combine, which the query asks, reading the order's own sub-order; the other order of the combine, not paid,
     * stays as it is.
     */
    @Test
    void aQueryAsksForTheCombineAndReadsTheOrdersOwnSubOrder() {
        String combine = Ids.unique("CMB");
        String paid = Ids.unique("CQ");
        String unpaid = Ids.unique("CQ");
        for (String order : List.of(paid, unpaid)) {
            Api.createCombinedOrder(order, "10.00", combine).then().statusCode(201)
                    .body("outTradeNo", org.hamcrest.Matchers.equalTo(order));
            db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 2 HOUR) WHERE out_trade_no = ?", order);
        }
        providers.payment("wxpay", paid, "SUCCESS", 1000, "CNY", Ids.unique("42000"));
        providers.payment("wxpay", unpaid, "NOTPAY", 1000, "CNY", Ids.unique("42000"));
        providers.wxCombine(combine, List.of(paid, unpaid));

        queryRound();

        assertThat(Api.orderStatus(paid)).isEqualTo("PAID");
        assertThat(Api.orderStatus(unpaid)).isEqualTo("PENDING");
        assertThat(Api.order(paid).then().extract().jsonPath().getString("combineOutTradeNo")).isEqualTo(combine);
        assertThat(providers.requestsFor("wxpay", "combine-query", combine)).hasSize(2)
                .allSatisfy(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("wxpay", "query", paid)).isEmpty();
        assertThat(db.first("SELECT origin FROM pay_callback_log WHERE out_trade_no = ?", paid).getString("origin"))
                .isEqualTo("query");
    }

    /**
     * WeChat Pay closes a combine whole: closing one of its orders closes the combine, naming every sub-order, and
     * closing the other order after it finds its sub-order closed, with no second close.
     */
    @Test
    void anOrderOfACombineIsClosedWithItsWholeCombine() {
        String combine = Ids.unique("CMB");
        String first = Ids.unique("CC");
        String second = Ids.unique("CC");
        for (String order : List.of(first, second)) {
            Api.createCombinedOrder(order, "10.00", combine).then().statusCode(201);
            providers.payment("wxpay", order, "NOTPAY", 1000, "CNY", Ids.unique("42000"));
        }
        providers.wxCombine(combine, List.of(first, second));

        Api.closeOrder(first).then().statusCode(200);
        Api.closeOrder(second).then().statusCode(200);

        assertThat(Api.orderStatus(first)).isEqualTo("CLOSED");
        assertThat(Api.orderStatus(second)).isEqualTo("CLOSED");
        assertThat(providers.requestsFor("wxpay", "combine-close", combine)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("wxpay", "close", first)).isEmpty();
    }

    @Test
    void aPaidCombinesOrderCannotBeClosedAndIsPaidOnce() {
        String combine = Ids.unique("CMB");
        String order = Ids.unique("CC");
        Api.createCombinedOrder(order, "10.00", combine).then().statusCode(201);
        providers.payment("wxpay", order, "SUCCESS", 1000, "CNY", Ids.unique("42000"));
        providers.wxCombine(combine, List.of(order));

        Api.closeOrder(order).then().statusCode(409);

        assertThat(Api.orderStatus(order)).isEqualTo("PAID");
        assertThat(events("order.paid", order)).isEqualTo(1);
        assertThat(providers.requestsFor("wxpay", "combine-close", combine)).isEmpty();
    }
}
