package io.paycallback.testsupport;

import org.eclipse.microprofile.config.ConfigProvider;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static io.restassured.RestAssured.given;

/** The test's handle on {@link EventSinkResource}. */
public final class EventSink {

    private final String base = ConfigProvider.getConfig().getValue("test.sink.base-url", String.class);

    /** Idempotency-Key and event type of each delivery the sink accepted, in order. */
    public List<String> received() {
        String text = given().get(base + "/received").then().statusCode(200).extract().asString();
        return text.isBlank() ? List.of() : Arrays.asList(text.split("\n"));
    }

    public List<String> receivedFor(String source) {
        return received().stream().filter(line -> line.startsWith(source + ":")).toList();
    }

    /** The traceparent headers of the deliveries of this Idempotency-Key that the sink accepted, in order. */
    public List<String> traceparentsOf(String idempotencyKey) {
        String text = given().get(base + "/traceparents").then().statusCode(200).extract().asString();
        return text.isBlank() ? List.of() : Arrays.stream(text.split("\n"))
                .filter(line -> line.startsWith(idempotencyKey + " "))
                .map(line -> line.substring(idempotencyKey.length() + 1)).toList();
    }

    public void answer(int status) {
        given().body(Integer.toString(status)).post(base + "/answer").then().statusCode(200);
    }

    /** What the sink's answers carry as their body from now on. */
    public void answerBody(String body) {
        given().body(body.getBytes(StandardCharsets.UTF_8)).post(base + "/answer-body").then().statusCode(200);
    }

    /** How long the sink waits before it answers an event, from now on. */
    public void delay(Duration delay) {
        given().body(Long.toString(delay.toMillis())).post(base + "/delay").then().statusCode(200);
    }

    public void reset() {
        given().post(base + "/reset").then().statusCode(200);
    }
}
