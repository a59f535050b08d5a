package io.paycallback.delivery;

import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Arrays;
import java.util.List;

import static io.restassured.RestAssured.given;

/** The test's handle on {@link FakeDestinations}. */
final class FakeDestinationsClient {

    private final String base = ConfigProvider.getConfig().getValue("test.destinations.base-url", String.class);

    /** One delivery as a destination saw it. */
    record Received(String destination, String idempotencyKey, String webhookId, String timestamp, int signatures,
                    String verifiedWith, String answered, long arrivedMillis) {

        static Received of(String line) {
            String[] f = line.split("\t", -1);
            return new Received(f[0], f[1], f[2], f[3], Integer.parseInt(f[4]), f[5], f[6], Long.parseLong(f[7]));
        }
    }

    List<Received> received() {
        String text = given().get(base + "/control/received").then().statusCode(200).extract().asString();
        return text.isBlank() ? List.of() : Arrays.stream(text.split("\n")).map(Received::of).toList();
    }

    List<Received> received(String destination, String idempotencyKeyPrefix) {
        return received().stream().filter(r -> r.destination().equals(destination)
                && r.idempotencyKey().startsWith(idempotencyKeyPrefix)).toList();
    }

    void answer(String destination, int status) {
        given().post(base + "/control/" + destination + "?status=" + status).then().statusCode(200);
    }

    void answer(String destination, int status, String retryAfter) {
        given().queryParam("status", status).queryParam("retryAfter", retryAfter)
                .post(base + "/control/" + destination).then().statusCode(200);
    }

    void silent(String destination) {
        given().post(base + "/control/" + destination + "?silent=true").then().statusCode(200);
    }

    void reset() {
        given().post(base + "/control/reset").then().statusCode(200);
    }
}
