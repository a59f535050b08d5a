package io.paycallback.testsupport;

import io.restassured.response.Response;

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
        return given()
                .headers(callback.headers())
                .contentType(callback.contentType())
                .body(callback.body())
                .when()
                .post(path);
    }
}
