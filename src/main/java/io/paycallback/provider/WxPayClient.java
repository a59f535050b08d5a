package io.paycallback.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Rejection;
import io.paycallback.channel.wxpay.WxPayChannel;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.Money;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpMethod;
import io.vertx.mutiny.ext.web.client.WebClient;

import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * WeChat Pay API v3: requests signed with the merchant API key, every answer verified with the platform keys that
 * verify notices. Transaction queries by our order number, domestic refunds by our refund number. A partner's
 * (服务商) sub-merchant is served with the partner's keys: the partner transaction endpoints with {@code sp_mchid} and
 * {@code sub_mchid}, and {@code sub_mchid} on refunds, refund queries and bills.
 */
public final class WxPayClient implements ProviderApi {

    private static final String PROVIDER = "wxpay";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** trade_state of a transaction the buyer can no longer pay, and the query's answer for one never created. */
    private static final Set<String> CLOSED_STATES = Set.of("CLOSED", "REVOKED", "ORDER_NOT_EXIST");
    /** The same for an order paid in a combine, and for one its combine does not hold. */
    private static final Set<String> COMBINE_CLOSED_STATES = Set.of("CLOSED", "REVOKED", "ORDER_NOT_EXIST", "NOT_IN_COMBINE");

    /**
     * A merchant's API credentials, or its partner's with the sub-merchant they act for.
     *
     * @param mchid    the merchant's number; the partner's ({@code sp_mchid}) for a sub-merchant
     * @param subMchid the sub-merchant's number, for a partner's sub-merchant
     */
    public record Keys(String mchid, String serial, PrivateKey privateKey, Optional<String> subMchid) {

        String queryUrl(String outTradeNo) {
            return subMchid.map(sub -> "/v3/pay/partner/transactions/out-trade-no/" + pathSegment(outTradeNo)
                            + "?sp_mchid=" + pathSegment(mchid) + "&sub_mchid=" + pathSegment(sub))
                    .orElseGet(() -> "/v3/pay/transactions/out-trade-no/" + pathSegment(outTradeNo) + "?mchid=" + pathSegment(mchid));
        }

        String closeUrl(String outTradeNo) {
            return subMchid.map(sub -> "/v3/pay/partner/transactions/out-trade-no/" + pathSegment(outTradeNo) + "/close")
                    .orElseGet(() -> WxPayClient.closeUrl(outTradeNo));
        }

        String closeBody() {
            return subMchid.map(sub -> JSON.createObjectNode().put("sp_mchid", mchid).put("sub_mchid", sub).toString())
                    .orElseGet(() -> WxPayClient.closeBody(mchid));
        }

        /** The query string that names the sub-merchant, with {@code separator} before it; empty for a direct merchant. */
        String subMerchantParam(char separator) {
            return subMchid.map(sub -> separator + "sub_mchid=" + pathSegment(sub)).orElse("");
        }

        @Override
        public String toString() {
            return "Keys[mchid=" + mchid + subMchid.map(sub -> ", sub_mchid=" + sub).orElse("") + ", serial=" + serial + "]";
        }
    }

    private final WebClient http;
    private final Tracing tracing;
    private final String baseUrl;
    private final Duration timeout;
    private final Clock clock;
    private final WxPayChannel channel;
    private final Map<String, Keys> merchants;
    private final Downloads downloads;

    /** WeChat Pay's client for these merchants, verifying answers with the keys of {@code channel}. */
    public static WxPayClient of(ProviderClients.Context context, WxPayChannel channel, Map<String, Keys> merchants) {
        return new WxPayClient(context.http(), context.tracing(), context.wxpayBaseUrl(), context.timeout(), context.clock(), channel, merchants, context.downloads());
    }

    private WxPayClient(WebClient http, Tracing tracing, String baseUrl, Duration timeout, Clock clock, WxPayChannel channel,
                Map<String, Keys> merchants, Downloads downloads) {
        this.http = http;
        this.tracing = tracing;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.timeout = timeout;
        this.clock = clock;
        this.channel = channel;
        this.merchants = Map.copyOf(merchants);
        this.downloads = downloads;
    }

    @Override
    public ChannelId channel() {
        return ChannelId.WXPAY;
    }

    @Override
    public Set<String> merchantIds() {
        return merchants.keySet();
    }

    /**
     * {@code GET /v3/bill/tradebill} (ALL, GZIP), its answer verified like every other; then the file from
     * {@code download_url}, with a signed {@code Authorization} but no signature on the answer: the caller checks the
     * SHA-1 of the decompressed file against {@code hash_value} instead.
     */
    @Override
    public TradeBill tradeBill(String merchantId, LocalDate billDate) {
        Keys keys = merchants.get(merchantId);
        String url = "/v3/bill/tradebill?bill_date=" + billDate + keys.subMerchantParam('&') + "&bill_type=ALL&tar_type=GZIP";
        JsonNode answer;
        try {
            answer = call(merchantId, keys, HttpMethod.GET, url, "", Downloads.atLeast(timeout))
                    .map(response -> verified(merchantId, keys, response)).await().atMost(Downloads.atLeast(timeout).plusSeconds(2));
        } catch (ProviderException e) {
            if (e.failure() instanceof ProviderFailure.Rejected rejected) {
                if ("STATEMENT_CREATING".equals(rejected.code())) {
                    return new TradeBill.NotReady(rejected.code());
                }
                if ("NO_STATEMENT_EXIST".equals(rejected.code())) {
                    return new TradeBill.Empty(rejected.code());
                }
            }
            throw e;
        }
        String hashType = answer.path("hash_type").asText("");
        String hash = answer.path("hash_value").asText("");
        String downloadUrl = answer.path("download_url").asText("");
        if (!"SHA1".equalsIgnoreCase(hashType) || hash.isEmpty() || downloadUrl.isEmpty()) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("bill answer without SHA1 hash_value and download_url"));
        }
        URI download = URI.create(downloadUrl);
        // Signed like any request: the URL's path and query (relative to the configured base, which may carry a path).
        String signedUrl = downloadUrl.startsWith(baseUrl + "/") ? downloadUrl.substring(baseUrl.length())
                : download.getRawPath() + (download.getRawQuery() == null ? "" : "?" + download.getRawQuery());
        String authorization = WxPayAuthorization.header(keys.mchid(), keys.serial(), keys.privateKey(), "GET", signedUrl,
                clock.instant().getEpochSecond(), UUID.randomUUID().toString().replace("-", ""), "");
        InputStream body = downloads.get(PROVIDER, downloadUrl, Map.of("Authorization", authorization, "Accept", "*/*",
                "Wechatpay-Serial", keys.serial()));
        return new TradeBill.File(body, hash);
    }

    @Override
    public Uni<PaymentAnswer> queryPayment(OrderRef order) {
        return order.combineOutTradeNo().isPresent() ? queryCombined(order) : queryPayment(order.merchantId(), order.outTradeNo());
    }

    /**
     * An order paid in a combine (合单) is answered for only through its combine:
     * {@code GET /v3/combine-transactions/out-trade-no/{combine_out_trade_no}}, whose {@code sub_orders} are read like
     * the combine notice's. The combine must be this merchant's (or partner's), and the order one of its sub-orders,
     * this merchant's own (a partner's: naming this sub-merchant); a combine without the order, or none at all, has
     * not paid it.
     */
    private Uni<PaymentAnswer> queryCombined(OrderRef order) {
        return combine(order).map(found -> found.map(Combine::paymentAnswer)
                .orElseGet(() -> new PaymentAnswer.NotPaid("ORDER_NOT_EXIST")));
    }

    /**
     * A combine's verified query answer and its body as received, with the order's own sub-order (checked to be this
     * merchant's), if the combine holds it.
     */
    private record Combine(String merchantId, JsonNode answer, byte[] body, Optional<JsonNode> own) {

        /** The order's own sub-order; a combine without it has not paid it. */
        PaymentAnswer paymentAnswer() {
            if (own.isEmpty()) {
                return new PaymentAnswer.NotPaid("NOT_IN_COMBINE");
            }
            Notice notice = Parsing.read(PROVIDER, () -> WxPayChannel.subOrder(merchantId, own.get()));
            return notice instanceof Notice.Payment payment
                    ? new PaymentAnswer.Paid(payment, body)
                    : new PaymentAnswer.NotPaid(own.get().path("trade_state").asText("unknown"));
        }
    }

    /** The order's combine as WeChat Pay answers for it; empty when it does not know the combine. */
    private Uni<Optional<Combine>> combine(OrderRef order) {
        String merchantId = order.merchantId();
        Keys keys = merchants.get(merchantId);
        return call(merchantId, keys, HttpMethod.GET, combineQueryUrl(order.combineOutTradeNo().orElseThrow().value()), "")
                .map(response -> {
                    if (response.status() == 404 && "ORDER_NOT_EXIST".equals(errorCode(response.body()))) {
                        return Optional.empty();
                    }
                    JsonNode answer = verified(merchantId, keys, response);
                    if (!keys.mchid().equals(answer.path("combine_mchid").asText())) {
                        throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("combine of another mchid"));
                    }
                    Optional<JsonNode> own = Optional.empty();
                    for (JsonNode subOrder : answer.path("sub_orders")) {
                        if (subOrder.path("out_trade_no").asText().equals(order.outTradeNo().value())) {
                            own = Optional.of(subOrder);
                        }
                    }
                    if (own.isPresent() && (!keys.mchid().equals(own.get().path("mchid").asText())
                            || !keys.subMchid().orElse("").equals(own.get().path("sub_mchid").asText("")))) {
                        throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("sub-order of another merchant"));
                    }
                    return Optional.of(new Combine(merchantId, answer, response.body(), own));
                });
    }

    /**
     * An order paid in a combine is closed with its whole combine, which is the only close WeChat Pay offers for it:
     * {@code POST /v3/combine-transactions/out-trade-no/{combine_out_trade_no}/close} naming every sub-order as the
     * combine's query lists them. The query first: an order paid there is paid, one not in it or a combine unknown
     * cannot be paid; a refused close is settled by asking again, as for a single order.
     */
    private Uni<CloseAnswer> closeCombined(OrderRef order) {
        String merchantId = order.merchantId();
        return combine(order).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().item((CloseAnswer) new CloseAnswer.ClosedAtProvider("ORDER_NOT_EXIST"));
            }
            PaymentAnswer now = found.get().paymentAnswer();
            if (now instanceof PaymentAnswer.Paid || COMBINE_CLOSED_STATES.contains(((PaymentAnswer.NotPaid) now).state())) {
                return Uni.createFrom().item(CloseDecision.decide(PROVIDER, now, "combine query", COMBINE_CLOSED_STATES));
            }
            String url = combineQueryUrl(order.combineOutTradeNo().orElseThrow().value()) + "/close";
            return close(merchantId, url, combineCloseBody(found.get().answer()), "204 (the whole combine)",
                    () -> queryCombined(order), COMBINE_CLOSED_STATES);
        });
    }

    /** Every sub-order of the combine, as its query listed them: WeChat Pay closes a combine whole or not at all. */
    private static String combineCloseBody(JsonNode combine) {
        ObjectNode body = JSON.createObjectNode().put("combine_appid", combine.path("combine_appid").asText());
        var subOrders = body.putArray("sub_orders");
        for (JsonNode subOrder : combine.path("sub_orders")) {
            ObjectNode sub = subOrders.addObject()
                    .put("mchid", subOrder.path("mchid").asText())
                    .put("out_trade_no", subOrder.path("out_trade_no").asText());
            if (subOrder.hasNonNull("sub_mchid")) {
                sub.put("sub_mchid", subOrder.path("sub_mchid").asText());
            }
        }
        return body.toString();
    }

    private static String combineQueryUrl(String combineOutTradeNo) {
        return "/v3/combine-transactions/out-trade-no/" + pathSegment(combineOutTradeNo);
    }

    private Uni<PaymentAnswer> queryPayment(String merchantId, OutTradeNo outTradeNo) {
        Keys keys = merchants.get(merchantId);
        return call(merchantId, keys, HttpMethod.GET, keys.queryUrl(outTradeNo.value()), "").map(response -> {
            if (response.status() == 404 && "ORDER_NOT_EXIST".equals(errorCode(response.body()))) {
                return new PaymentAnswer.NotPaid("ORDER_NOT_EXIST");
            }
            JsonNode transaction = verified(merchantId, keys, response);
            Notice notice = Parsing.read(PROVIDER, () -> WxPayChannel.payment(merchantId, transaction));
            return notice instanceof Notice.Payment payment
                    ? new PaymentAnswer.Paid(payment, response.body())
                    : new PaymentAnswer.NotPaid(transaction.path("trade_state").asText("unknown"));
        });
    }

    @Override
    public Uni<RefundAnswer> submitRefund(RefundOrder refund) {
        Keys keys = merchants.get(refund.merchantId());
        ObjectNode body = JSON.createObjectNode();
        keys.subMchid().ifPresent(sub -> body.put("sub_mchid", sub));
        body.put("transaction_id", ChannelTradeNo.valueOrNull(refund.channelTradeNo()));
        body.put("out_refund_no", refund.refundNo().value());
        body.put("reason", refund.reason());
        ObjectNode amount = body.putObject("amount");
        amount.put("refund", Parsing.read(PROVIDER, () -> Money.toMinorUnits(refund.amount().amount(), refund.currency())));
        amount.put("total", Parsing.read(PROVIDER, () -> Money.toMinorUnits(refund.paymentAmount().amount(), refund.currency())));
        amount.put("currency", refund.currency());
        return call(refund.merchantId(), keys, HttpMethod.POST, "/v3/refund/domestic/refunds", body.toString())
                .map(response -> {
                    JsonNode answer = verified(refund.merchantId(), keys, response);
                    String refundId = answer.path("refund_id").asText(null);
                    return new RefundAnswer(refundId, settled(refund, answer, refundId), response.body());
                });
    }

    @Override
    public Uni<Optional<Notice.Refund>> queryRefund(RefundOrder refund, String channelRefundId) {
        Keys keys = merchants.get(refund.merchantId());
        return call(refund.merchantId(), keys, HttpMethod.GET,
                "/v3/refund/domestic/refunds/" + pathSegment(refund.refundNo().value()) + keys.subMerchantParam('?'), "")
                .map(response -> {
                    JsonNode answer = verified(refund.merchantId(), keys, response);
                    return settled(refund, answer, answer.path("refund_id").asText(channelRefundId));
                });
    }

    /**
     * 204 is closed. A refusal (ORDER_CLOSED, ORDERPAID, a trade in any state but NOTPAY) and 404 are settled by asking
     * for the transaction, whose verified answer says paid or closed; a refused signature or key stays a rejection.
     */
    @Override
    public Uni<CloseAnswer> closePayment(OrderRef order) {
        return order.combineOutTradeNo().isPresent() ? closeCombined(order)
                : closePayment(order.merchantId(), order.outTradeNo());
    }

    private Uni<CloseAnswer> closePayment(String merchantId, OutTradeNo outTradeNo) {
        Keys keys = merchants.get(merchantId);
        return close(merchantId, keys.closeUrl(outTradeNo.value()), keys.closeBody(), "204",
                () -> queryPayment(merchantId, outTradeNo), CLOSED_STATES);
    }

    /**
     * A close call: 204 (its signature verified too) is closed; a refusal other than of our signature or key is
     * settled by {@code query}, whose verified answer says paid, or closed by {@code closedStates}.
     */
    private Uni<CloseAnswer> close(String merchantId, String url, String body, String closed,
                                   Supplier<Uni<PaymentAnswer>> query, Set<String> closedStates) {
        return call(merchantId, merchants.get(merchantId), HttpMethod.POST, url, body)
                .flatMap(response -> {
                    if (response.status() == 204) {
                        verifiedSignature(merchantId, response);
                        return Uni.createFrom().item((CloseAnswer) new CloseAnswer.ClosedAtProvider(closed));
                    }
                    return Uni.createFrom().<CloseAnswer>failure(rejected(response));
                })
                .onFailure(ProviderException.class).recoverWithUni(failure -> {
                    ProviderException refused = (ProviderException) failure;
                    if (!(refused.failure() instanceof ProviderFailure.Rejected rejection) || rejection.status() == 401) {
                        return Uni.createFrom().failure(refused);
                    }
                    return query.get().map(answer -> CloseDecision.decide(PROVIDER, answer, rejection.code(), closedStates));
                });
    }

    static String closeUrl(String outTradeNo) {
        return "/v3/pay/transactions/out-trade-no/" + pathSegment(outTradeNo) + "/close";
    }

    static String closeBody(String mchid) {
        return JSON.createObjectNode().put("mchid", mchid).toString();
    }

    private Optional<Notice.Refund> settled(RefundOrder refund, JsonNode answer, String refundId) {
        Notice.RefundResult result = switch (answer.path("status").asText("")) {
            case "SUCCESS" -> Notice.RefundResult.SUCCEEDED;
            case "CLOSED", "ABNORMAL" -> Notice.RefundResult.FAILED;
            default -> null;
        };
        if (result == null) {
            return Optional.empty();
        }
        long refunded = answer.path("amount").path("refund").asLong(-1);
        if (refunded < 0) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("refund answer without amount.refund"));
        }
        // The answer's own currency, so that the caller's check against the refund compares the provider's word.
        String currency = answer.path("amount").path("currency").asText("CNY");
        return Optional.of(new Notice.Refund(refund.merchantId(), ChannelId.WXPAY, refund.refundNo(), refundId,
                refund.channelTradeNo(), refund.outTradeNo(), result,
                new Money(Parsing.read(PROVIDER, () -> Money.fromMinorUnits(refunded, currency)), currency), null));
    }

    private Uni<ProviderHttp.Response> call(String merchantId, Keys keys, HttpMethod method, String url, String body) {
        return call(merchantId, keys, method, url, body, timeout);
    }

    private Uni<ProviderHttp.Response> call(String merchantId, Keys keys, HttpMethod method, String url, String body,
                                            Duration timeout) {
        long timestamp = clock.instant().getEpochSecond();
        String nonce = UUID.randomUUID().toString().replace("-", "");
        String authorization = WxPayAuthorization.header(keys.mchid(), keys.serial(), keys.privateKey(), method.name(),
                url, timestamp, nonce, body);
        var request = http.requestAbs(method, baseUrl + url)
                .putHeader("Authorization", authorization)
                .putHeader("Accept", "application/json")
                .putHeader("Wechatpay-Serial", keys.serial());
        if (method == HttpMethod.POST) {
            request.putHeader("Content-Type", "application/json");
        }
        return ProviderHttp.send(tracing, PROVIDER, request, method == HttpMethod.POST ? body.getBytes(StandardCharsets.UTF_8) : null,
                timeout).map(response -> {
                    if (response.status() >= 500) {
                        throw new ProviderException(PROVIDER,
                                new ProviderFailure.ServerError(response.status(), errorCode(response.body())));
                    }
                    if (response.status() >= 400 && response.status() != 404) {
                        throw rejected(response);
                    }
                    return response;
                });
    }

    private JsonNode verified(String merchantId, Keys keys, ProviderHttp.Response response) {
        if (response.status() != 200) {
            throw rejected(response);
        }
        verifiedSignature(merchantId, response);
        JsonNode answer = Parsing.read(PROVIDER, () -> JsonFields.parse(response.body(), "answer"));
        if (answer.has("mchid") && !keys.mchid().equals(answer.path("mchid").asText())) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("answer for another mchid"));
        }
        if (answer.has("sp_mchid") && !keys.mchid().equals(answer.path("sp_mchid").asText())
                || answer.has("sub_mchid") && !keys.subMchid().orElse("").equals(answer.path("sub_mchid").asText())) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("answer for another sub-merchant"));
        }
        return answer;
    }

    /**
     * WeChat Pay signs every answer, an empty 204 included. An answer signed by a certificate the merchant does not hold
     * yet is a failure now, and asks the merchant's certificates (in certificate mode) to be downloaded again, so that
     * the call's retry verifies.
     */
    private void verifiedSignature(String merchantId, ProviderHttp.Response response) {
        try {
            channel.verifyAnswer(merchantId, response.headers(), response.body());
        } catch (Rejection rejection) {
            channel.learnKeys(new CallbackRequest(merchantId, CallbackKind.PAYMENT, response.headers(), response.body()));
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("answer signature: " + Parsing.reason(rejection)));
        }
    }

    private static ProviderException rejected(ProviderHttp.Response response) {
        JsonNode error = errorBody(response.body());
        return new ProviderException(PROVIDER, new ProviderFailure.Rejected(response.status(),
                error.path("code").asText("UNKNOWN"), error.path("message").asText(null)));
    }

    private static String errorCode(byte[] body) {
        return errorBody(body).path("code").asText(null);
    }

    private static JsonNode errorBody(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (Exception e) {
            return JSON.createObjectNode();
        }
    }

    private static String pathSegment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
