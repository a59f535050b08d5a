package io.paycallback.delivery;

import io.paycallback.lease.Scanner;
import io.paycallback.outbox.Outbox;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.KafkaTopic;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Kafka destinations against a real broker ({@link KafkaDestinationResource}): every paid order's {@code order.paid} on
 * the topic once per webhook-id, keyed by its order, its value the event's body, verified by the consumer of
 * docs/webhooks.md; a refund's events after its payment's on the same partition; and a destination whose broker is
 * down opens its own circuit while the topic and the HTTP sink beside it get every event.
 */
@QuarkusTest
@TestProfile(KafkaDestinationTest.OnABroker.class)
class KafkaDestinationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    public static class OnABroker implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(KafkaDestinationResource.class));
        }
    }

    @Inject
    Pool pool;
    @Inject
    DestinationControls destinations;
    @Inject
    Scanner scanner;
    @ConfigProperty(name = "test.kafka.bootstrap-servers")
    String bootstrap;
    @ConfigProperty(name = "test.kafka.topic")
    String topic;
    @ConfigProperty(name = "test.kafka.unavailable")
    Optional<String> unavailable;

    private Db db;
    private ProviderSigner signer;

    @BeforeEach
    void setUp() {
        assumeTrue(unavailable.isEmpty(), () -> "no Kafka broker: " + unavailable.orElse(""));
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
    }

    /** The brokerless destination's events would be tried by every later suite's scanner, which knows no such destination. */
    @AfterEach
    void forgetTheBrokerlessDestinationsEvents() {
        db.update("DELETE FROM delivery_attempts WHERE destination = 'brokerless'");
        db.update("DELETE FROM outbox WHERE destination = 'brokerless'");
    }

    /** Its open circuit would be on every later suite's first screen. */
    @AfterAll
    static void forgetTheBrokerlessDestination() {
        new Db(Arc.container().instance(Pool.class).get())
                .update("DELETE FROM destination_circuits WHERE destination = 'brokerless'");
    }

    private String paidOrder() {
        String outTradeNo = Ids.unique("KFK");
        Api.createOrder(outTradeNo, "12.00", "CNY").then().statusCode(201);
        Send.payment(signer.wxPayment(outTradeNo, Ids.unique("42000"), 1200, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        return outTradeNo;
    }

    private List<KafkaTopic.Received> recordsOf(List<String> outTradeNos, int atLeast) {
        List<String> keys = outTradeNos.stream().map(no -> "default:" + no).toList();
        List<List<KafkaTopic.Received>> found = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            List<KafkaTopic.Received> mine = KafkaTopic.readAll(bootstrap, topic, WAIT).stream()
                    .filter(record -> keys.contains(record.key())).toList();
            found.add(0, mine);
            return mine.size() >= atLeast;
        });
        return found.get(0);
    }

    @Test
    void everyPaidOrderIsOneRecordKeyedByItsOrderWithTheEventsBodyAndVerifiesAsAWebhook() throws Exception {
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            orders.add(paidOrder());
        }
        // A repeat of a notice is answered and makes no second event.
        String repeated = orders.get(0);
        String transactionId = db.first("SELECT channel_trade_no FROM pay_callback_log WHERE out_trade_no = ?", repeated)
                .getString("channel_trade_no");
        Send.payment(signer.wxPayment(repeated, transactionId, 1200, "SUCCESS", Instant.now())).then().statusCode(200);

        List<KafkaTopic.Received> records = recordsOf(orders, orders.size());
        awaitDelivered("bus", orders);

        assertThat(records).extracting(KafkaTopic.Received::key)
                .containsExactlyInAnyOrderElementsOf(orders.stream().map(no -> "default:" + no).toList());
        for (KafkaTopic.Received record : records) {
            String outTradeNo = record.key().substring("default:".length());
            Row event = db.first("SELECT source, type, payload, delivered_http_status, delivered_response_body FROM outbox"
                    + " WHERE destination = 'bus' AND out_trade_no = ?", outTradeNo);
            String key = Outbox.idempotencyKey(event.getString("source"), "order.paid", "bus");
            assertThat(record.value()).as("the value is the event's body unchanged").isEqualTo(event.getString("payload"));
            assertThat(record.headers()).containsEntry("webhook-id", WebhookSigner.webhookId(key))
                    .containsEntry("webhook-event-type", "order.paid").containsEntry("idempotency-key", key)
                    .containsEntry("content-type", "application/json").containsKey("webhook-signature");
            assertThat(event.getInteger("delivered_http_status")).isNull();
            assertThat(new String(event.getBuffer("delivered_response_body").getBytes(), StandardCharsets.UTF_8))
                    .isEqualTo("partition " + record.partition() + " offset " + record.offset());
        }

        // The page's consumer reads the same records, verifies each with the destination's secret and handles it once.
        Map<String, String> handled = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "ledger-" + UUID.randomUUID(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            PayCallbackEvents events = new PayCallbackEvents(consumer, new WebhookVerifier(KafkaDestinationResource.SECRET));
            List<ConsumerRecord<String, byte[]>> refused = new ArrayList<>();
            Map<String, String> ids = records.stream().collect(Collectors.toMap(r -> r.headers().get("webhook-id"),
                    KafkaTopic.Received::key));
            await().atMost(WAIT).until(() -> {
                refused.addAll(events.poll((webhookId, type, body) -> {
                    if (ids.containsKey(webhookId)) {
                        assertThat(handled.put(webhookId, type)).as("handled once: %s", webhookId).isNull();
                    }
                }));
                return handled.size() == ids.size();
            });
            assertThat(refused).as("records that did not verify").isEmpty();
        }
        assertThat(handled.values()).containsOnly("order.paid");
        awaitDelivered("sink", orders);
    }

    @Test
    void aRefundsEventFollowsItsPaymentsOnTheSamePartition() {
        String outTradeNo = Ids.unique("KFK");
        Api.createOrder(outTradeNo, "30.00", "CNY").then().statusCode(201);
        String transactionId = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 3000, "SUCCESS", Instant.now())).then().statusCode(200);
        recordsOf(List.of(outTradeNo), 1);
        Send.refund(signer.wxRefund(outTradeNo, transactionId, Ids.unique("RF"), Ids.unique("5030"), 1000, "SUCCESS",
                Instant.now())).then().statusCode(200);

        List<KafkaTopic.Received> records = recordsOf(List.of(outTradeNo), 2);

        assertThat(records).extracting(record -> record.headers().get("webhook-event-type"))
                .containsExactly("order.paid", "refund.succeeded");
        assertThat(records.get(1).partition()).isEqualTo(records.get(0).partition());
        assertThat(records.get(1).offset()).isGreaterThan(records.get(0).offset());
    }

    @Test
    void anOperatorsReplayPublishesTheEventAgainWithTheSameWebhookId() {
        String since = db.first("SELECT NOW(3) AS now").getLocalDateTime("now").toString();
        String outTradeNo = paidOrder();
        String webhookId = recordsOf(List.of(outTradeNo), 1).get(0).headers().get("webhook-id");
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM outbox WHERE destination = 'bus' AND status = 1"
                + " AND out_trade_no = ?", outTradeNo) == 1);

        long upToId = Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("since", since))
                .post("/admin/destinations/bus/replay").then().statusCode(200).extract().jsonPath().getLong("upToId");
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("since", since, "upToId", upToId,
                "dryRun", false)).post("/admin/destinations/bus/replay").then().statusCode(202);
        scanner.drain(Outbox.TABLE);

        assertThat(recordsOf(List.of(outTradeNo), 2)).extracting(record -> record.headers().get("webhook-id"))
                .containsExactly(webhookId, webhookId);
    }

    @Test
    void aDestinationWhoseBrokerIsDownOpensItsOwnCircuitAndHoldsUpNeitherTheTopicNorTheWebhook() {
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            orders.add(paidOrder());
        }

        recordsOf(orders, orders.size());
        awaitDelivered("sink", orders);
        await().atMost(WAIT).until(() -> destinations.get("brokerless").await().indefinitely().orElseThrow().state()
                == DestinationState.OPEN);

        DestinationView brokerless = destinations.get("brokerless").await().indefinitely().orElseThrow();
        assertThat(brokerless.endpoint()).startsWith("kafka://127.0.0.1:").endsWith("/nobody-reads-this");
        assertThat(brokerless.reason()).contains("no broker answered for the topic within 1 s");
        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE destination = 'brokerless' AND status = 0 AND out_trade_no IN ("
                + placeholders(orders) + ")", orders.toArray())).as("its events wait, none lost").isEqualTo(orders.size());
        Map<String, Object> view = Api.as(Api.ALICE_TOKEN).get("/admin/destinations/bus").then().statusCode(200)
                .extract().jsonPath().getMap("$");
        assertThat(view).containsEntry("state", "closed");
        assertThat((String) view.get("endpoint")).isEqualTo("kafka://" + bootstrap + "/" + topic);
    }

    /** The HTTP destination beside the topic, or the topic itself: each order's event delivered. */
    private void awaitDelivered(String destination, List<String> orders) {
        List<Object> params = new ArrayList<>(List.of(destination));
        params.addAll(orders);
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM outbox WHERE destination = ? AND status = 1"
                + " AND type = 'order.paid' AND out_trade_no IN (" + placeholders(orders) + ")", params.toArray())
                == orders.size());
    }

    private static String placeholders(List<String> values) {
        return values.stream().map(value -> "?").collect(Collectors.joining(", "));
    }
}
