package io.paycallback.testsupport;

import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import static io.restassured.RestAssured.given;

/** The order service's side of the internal API, with the test profile's bearer token. */
public final class Api {

    public static final String TOKEN = "test-admin-token";

    private Api() {
    }

    public static RequestSpecification authorized() {
        return given().header("Authorization", "Bearer " + TOKEN);
    }

    public static Response createOrder(String outTradeNo, String amount, String currency) {
        return authorized().contentType("application/json")
                .body("{\"merchantId\":\"default\",\"outTradeNo\":\"" + outTradeNo + "\",\"amount\":\"" + amount
                        + "\",\"currency\":\"" + currency + "\"}")
                .post("/internal/orders");
    }

    public static Response closeOrder(String outTradeNo) {
        return authorized().post("/internal/orders/" + outTradeNo + "/close");
    }

    public static Response order(String outTradeNo) {
        return authorized().get("/internal/orders/" + outTradeNo);
    }

    public static String orderStatus(String outTradeNo) {
        return order(outTradeNo).then().statusCode(200).extract().path("status");
    }
}
