package io.paycallback.testsupport;

import io.restassured.response.Response;

import java.nio.charset.StandardCharsets;

import static io.restassured.RestAssured.given;

/** Posts a signed callback to the service under test. */
public final class Send {

    private Send() {
    }

    public static Response payment(SignedCallback callback) {
        return post("/pay/callback/" + callback.channel(), callback);
    }

    public static Response refund(SignedCallback callback) {
        return post("/refund/callback/" + callback.channel(), callback);
    }

    public static Response post(String path, SignedCallback callback) {
        var request = given().headers(callback.headers()).contentType(callback.contentType());
        // RestAssured re-encodes form bodies given as bytes; an Alipay body is already percent-encoded ASCII.
        return (callback.contentType().startsWith("application/x-www-form-urlencoded")
                ? request.body(new String(callback.body(), StandardCharsets.US_ASCII))
                : request.body(callback.body()))
                .when()
                .post(path);
    }
}
