package io.paycallback.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.Notice;
import io.paycallback.channel.stripe.StripeChannel;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.Money;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpMethod;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.ext.web.client.HttpRequest;
import io.vertx.mutiny.ext.web.client.WebClient;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Stripe's API with a secret or restricted key. Stripe does not sign API answers (TLS is the proof), so an answer is
 * taken as read. PaymentIntents are found by {@code metadata['out_trade_no']} with the search API; a refund carries
 * our refund number as its {@code Idempotency-Key} and in its metadata, so its events are keyed like our request. A
 * connected account's merchant is served with its platform's key and the account in {@code Stripe-Account}.
 */
public final class StripeClient implements ProviderApi {

    private static final String PROVIDER = "stripe";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The error code of a call the PaymentIntent's status does not allow, e.g. cancelling a succeeded one. */
    private static final String UNEXPECTED_STATE = "payment_intent_unexpected_state";
    private static final byte[] CANCEL_FORM = "cancellation_reason=abandoned".getBytes(StandardCharsets.UTF_8);
    /** What {@link #queryPayment} answers for an order that cannot be paid here any more. */
    private static final Set<String> CLOSED_STATES = Set.of("none", "canceled");

    private final WebClient http;
    private final Tracing tracing;
    private final String baseUrl;
    private final Duration timeout;
    private final Map<String, Keys> apiKeys;
    private final Downloads downloads;

    /**
     * The key a merchant's calls are made with: its own, or its platform's with its connected account, which Stripe
     * then acts on ({@code Stripe-Account}): its PaymentIntents, refunds and balance.
     */
    public record Keys(String apiKey, Optional<String> account) {
        @Override
        public String toString() {
            return "Keys[" + account.orElse("own account") + "]";
        }
    }

    public static StripeClient of(ProviderClients.Context context, Map<String, Keys> apiKeys) {
        return new StripeClient(context.http(), context.tracing(), context.stripeBaseUrl(), context.timeout(), apiKeys, context.downloads());
    }

    private StripeClient(WebClient http, Tracing tracing, String baseUrl, Duration timeout, Map<String, Keys> apiKeys, Downloads downloads) {
        this.http = http;
        this.tracing = tracing;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.timeout = timeout;
        this.apiKeys = Map.copyOf(apiKeys);
        this.downloads = downloads;
    }

    @Override
    public ChannelId channel() {
        return ChannelId.STRIPE;
    }

    @Override
    public Set<String> merchantIds() {
        return apiKeys.keySet();
    }

    /**
     * The balance transactions created in the UTC day, with their source objects (the charge or refund, whose own
     * amount and currency the comparison needs), 100 per page, paged with {@code starting_after}.
     */
    @Override
    public TradeBill tradeBill(String merchantId, LocalDate billDate) {
        long from = billDate.atStartOfDay(ZoneOffset.UTC).toEpochSecond();
        long to = billDate.plusDays(1).atStartOfDay(ZoneOffset.UTC).toEpochSecond();
        String first = baseUrl + "/v1/balance_transactions?created%5Bgte%5D=" + from + "&created%5Blt%5D=" + to
                + "&limit=100&expand%5B%5D=data.source";
        Map<String, String> headers = headers(merchantId);
        return new TradeBill.Pages(startingAfter -> downloads.get(PROVIDER,
                startingAfter == null ? first : first + "&starting_after=" + encode(startingAfter), headers));
    }

    @Override
    public Uni<PaymentAnswer> queryPayment(OrderRef order) {
        String merchantId = order.merchantId();
        OutTradeNo outTradeNo = order.outTradeNo();
        return search(merchantId, outTradeNo).map(found -> {
            String state = "none";
            for (JsonNode paymentIntent : found) {
                state = paymentIntent.path("status").asText("unknown");
                if ("succeeded".equals(state)) {
                    Notice notice = Parsing.read(PROVIDER, () -> StripeChannel.payment(merchantId, paymentIntent));
                    if (notice instanceof Notice.Payment payment && payment.outTradeNo().equals(outTradeNo)) {
                        return new PaymentAnswer.Paid(payment, paymentIntent.toString().getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            return new PaymentAnswer.NotPaid(state);
        });
    }

    /** The PaymentIntents whose metadata names our order (Stripe has no lookup by our number). */
    private Uni<JsonNode> search(String merchantId, OutTradeNo outTradeNo) {
        String query = "metadata['out_trade_no']:'" + outTradeNo.value().replace("'", "\\'") + "'";
        var request = http.requestAbs(HttpMethod.GET, baseUrl + "/v1/payment_intents/search?query=" + encode(query));
        return call(merchantId, request, null)
                .map(response -> Parsing.read(PROVIDER, () -> JsonFields.parse(response.body(), "answer")).path("data"));
    }

    /**
     * Cancels every PaymentIntent of the order that can still take money; none found means the buyer never started
     * paying here. A succeeded one means paid. A cancel refused with {@code payment_intent_unexpected_state} (the
     * intent moved on meanwhile: succeeded, or canceled by someone else) is settled by asking again.
     */
    @Override
    public Uni<CloseAnswer> closePayment(OrderRef order) {
        String merchantId = order.merchantId();
        OutTradeNo outTradeNo = order.outTradeNo();
        return search(merchantId, outTradeNo).flatMap(found -> {
            List<String> open = new ArrayList<>();
            for (JsonNode paymentIntent : found) {
                String status = paymentIntent.path("status").asText("unknown");
                if ("succeeded".equals(status)) {
                    return queryPayment(OrderRef.of(merchantId, outTradeNo))
                            .map(answer -> CloseDecision.decide(PROVIDER, answer, "succeeded", CLOSED_STATES));
                }
                if (!"canceled".equals(status)) {
                    open.add(paymentIntent.path("id").asText());
                }
            }
            if (open.isEmpty()) {
                return Uni.createFrom().item((CloseAnswer) new CloseAnswer.ClosedAtProvider(found.isEmpty() ? "none" : "canceled"));
            }
            return Multi.createFrom().iterable(open)
                    .onItem().transformToUniAndConcatenate(id -> cancel(merchantId, id))
                    .collect().asList()
                    .map(canceled -> (CloseAnswer) new CloseAnswer.ClosedAtProvider("canceled " + String.join(",", open)))
                    .onFailure(ProviderException.class).recoverWithUni(failure -> {
                        ProviderException refused = (ProviderException) failure;
                        if (refused.failure() instanceof ProviderFailure.Rejected rejection
                                && UNEXPECTED_STATE.equals(rejection.code())) {
                            return queryPayment(OrderRef.of(merchantId, outTradeNo))
                                    .map(answer -> CloseDecision.decide(PROVIDER, answer, UNEXPECTED_STATE, CLOSED_STATES));
                        }
                        return Uni.createFrom().failure(refused);
                    });
        });
    }

    private Uni<Void> cancel(String merchantId, String paymentIntentId) {
        var request = http.requestAbs(HttpMethod.POST, baseUrl + cancelPath(paymentIntentId))
                .putHeader("Content-Type", "application/x-www-form-urlencoded");
        return call(merchantId, request, CANCEL_FORM).map(response -> {
            String status = Parsing.read(PROVIDER, () -> JsonFields.parse(response.body(), "answer")).path("status").asText("");
            if (!"canceled".equals(status)) {
                throw new ProviderException(PROVIDER, new ProviderFailure.NotClosed(status));
            }
            return null;
        });
    }

    static String cancelPath(String paymentIntentId) {
        return "/v1/payment_intents/" + encode(paymentIntentId) + "/cancel";
    }

    @Override
    public Uni<RefundAnswer> submitRefund(RefundOrder refund) {
        long minor = Parsing.read(PROVIDER, () -> Money.toMinorUnits(refund.amount().amount(), refund.currency()));
        String form = "payment_intent=" + encode(ChannelTradeNo.valueOrNull(refund.channelTradeNo()))
                + "&amount=" + minor
                + "&reason=" + ("paid_twice".equals(refund.reason()) ? "duplicate" : "requested_by_customer")
                + "&metadata[out_refund_no]=" + encode(refund.refundNo().value())
                + "&metadata[out_trade_no]=" + encode(OutTradeNo.valueOrNull(refund.outTradeNo()));
        var request = http.requestAbs(HttpMethod.POST, baseUrl + "/v1/refunds")
                .putHeader("Content-Type", "application/x-www-form-urlencoded")
                .putHeader("Idempotency-Key", refund.refundNo().value());
        return call(refund.merchantId(), request, form.getBytes(StandardCharsets.UTF_8)).map(response -> {
            JsonNode object = Parsing.read(PROVIDER, () -> JsonFields.parse(response.body(), "answer"));
            Notice notice = Parsing.read(PROVIDER, () -> StripeChannel.refund(refund.merchantId(), object, refund.outTradeNo()));
            Optional<Notice.Refund> settled = notice instanceof Notice.Refund done ? Optional.of(done) : Optional.empty();
            return new RefundAnswer(object.path("id").asText(null), settled, response.body());
        });
    }

    @Override
    public Uni<Optional<Notice.Refund>> queryRefund(RefundOrder refund, String channelRefundId) {
        if (channelRefundId == null) {
            return Uni.createFrom().failure(new ProviderException(PROVIDER,
                    new ProviderFailure.BadAnswer("no refund id was recorded to ask about")));
        }
        var request = http.requestAbs(HttpMethod.GET, baseUrl + "/v1/refunds/" + encode(channelRefundId));
        return call(refund.merchantId(), request, null).map(response -> {
            JsonNode object = Parsing.read(PROVIDER, () -> JsonFields.parse(response.body(), "answer"));
            Notice notice = Parsing.read(PROVIDER, () -> StripeChannel.refund(refund.merchantId(), object, refund.outTradeNo()));
            return notice instanceof Notice.Refund done ? Optional.of(done) : Optional.empty();
        });
    }

    private Uni<ProviderHttp.Response> call(String merchantId, HttpRequest<Buffer> request,
                                            byte[] body) {
        headers(merchantId).forEach(request::putHeader);
        return ProviderHttp.send(tracing, PROVIDER, request, body, timeout).map(response -> {
            if (response.status() / 100 == 2) {
                return response;
            }
            JsonNode error;
            try {
                error = JSON.readTree(response.body()).path("error");
            } catch (Exception e) {
                error = JSON.createObjectNode();
            }
            String code = error.path("code").asText(error.path("type").asText("unknown"));
            // 429 is Stripe's rate limit and 409 a concurrent use of the idempotency key: both are "try again".
            if (response.status() >= 500 || response.status() == 429 || response.status() == 409) {
                throw new ProviderException(PROVIDER, new ProviderFailure.ServerError(response.status(), code));
            }
            throw new ProviderException(PROVIDER, new ProviderFailure.Rejected(response.status(),
                    code.toLowerCase(Locale.ROOT), error.path("message").asText(null)));
        });
    }

    private Map<String, String> headers(String merchantId) {
        Keys keys = apiKeys.get(merchantId);
        return keys.account()
                .map(account -> Map.of("Authorization", "Bearer " + keys.apiKey(), "Stripe-Account", account))
                .orElseGet(() -> Map.of("Authorization", "Bearer " + keys.apiKey()));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
