package io.paycallback.testsupport;

import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import static io.restassured.RestAssured.given;

/**
 * The internal and admin APIs as the test profile's callers see them. {@link #authorized()} uses the deprecated shared
 * token (both roles), as every suite did before the roles existed.
 */
public final class Api {

    public static final String TOKEN = "test-admin-token";
    public static final String ORDER_SERVICE_TOKEN = "test-order-service-token";
    /** Two operator tokens at once, as during a rotation; their names are alice and bob. */
    public static final String ALICE_TOKEN = "test-operator-token-alice";
    public static final String BOB_TOKEN = "test-operator-token-bob";

    private Api() {
    }

    public static RequestSpecification authorized() {
        return as(TOKEN);
    }

    public static RequestSpecification as(String token) {
        return given().header("Authorization", "Bearer " + token);
    }

    public static Response createOrder(String outTradeNo, String amount, String currency) {
        return createOrder("default", outTradeNo, amount, currency);
    }

    public static Response createOrder(String merchantId, String outTradeNo, String amount, String currency) {
        return authorized().contentType("application/json")
                .body("{\"merchantId\":\"" + merchantId + "\",\"outTradeNo\":\"" + outTradeNo + "\",\"amount\":\""
                        + amount + "\",\"currency\":\"" + currency + "\"}")
                .post("/internal/orders");
    }

    /** An order paid in a WeChat Pay combine (合单). */
    public static Response createCombinedOrder(String outTradeNo, String amount, String combineOutTradeNo) {
        return createCombinedOrder("default", outTradeNo, amount, combineOutTradeNo);
    }

    public static Response createCombinedOrder(String merchantId, String outTradeNo, String amount, String combineOutTradeNo) {
        return authorized().contentType("application/json")
                .body("{\"merchantId\":\"" + merchantId + "\",\"outTradeNo\":\"" + outTradeNo + "\",\"amount\":\""
                        + amount + "\",\"currency\":\"CNY\",\"combineOutTradeNo\":\"" + combineOutTradeNo + "\"}")
                .post("/internal/orders");
    }

    public static Response closeOrder(String merchantId, String outTradeNo) {
        return authorized().queryParam("merchantId", merchantId).post("/internal/orders/" + outTradeNo + "/close");
    }

    public static String orderStatus(String merchantId, String outTradeNo) {
        return authorized().queryParam("merchantId", merchantId).get("/internal/orders/" + outTradeNo)
                .then().statusCode(200).extract().path("status");
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
