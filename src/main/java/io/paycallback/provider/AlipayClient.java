package io.paycallback.provider;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.Notice;
import io.paycallback.channel.alipay.AlipayChannel;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpMethod;
import io.vertx.mutiny.ext.web.client.WebClient;

import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Alipay OpenAPI through the gateway: requests signed RSA2 with the app's private key, answers verified with Alipay's
 * public key over the exact {@code *_response} text. {@code alipay.trade.query} and {@code alipay.trade.refund}. A
 * merchant that authorised a platform's third-party app is served by that app with its {@code app_auth_token}.
 */
public final class AlipayClient implements ProviderApi {

    private static final String PROVIDER = "alipay";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneId.of("Asia/Shanghai"));
    private static final String QUERY = "alipay.trade.query";
    private static final String REFUND = "alipay.trade.refund";
    private static final String REFUND_QUERY = "alipay.trade.fastpay.refund.query";
    private static final String CLOSE = "alipay.trade.close";
    /** trade_status of a trade the buyer can no longer pay, and the query's answer for one never created. */
    private static final Set<String> CLOSED_STATES = Set.of("TRADE_CLOSED", "TRADE_NOT_EXIST");
    private static final String BILL_URL = "alipay.data.dataservice.bill.downloadurl.query";
    private static final String CERT_DOWNLOAD = "alipay.open.app.alipaycert.download";
    private static final String SUCCESS = "10000";
    private static final String BUSINESS_FAILURE = "40004";
    private static final String UNAVAILABLE = "20000";

    /**
     * A merchant's app and the keys of both sides; or a platform's third-party app, which calls for a merchant with the
     * {@code app_auth_token} of that merchant's authorisation.
     *
     * @param certificates in public-key certificate mode, the SNs every request carries and Alipay's keys by SN; the
     *                     answers are then verified with the key of the SN they name
     */
    public record Keys(String appId, PrivateKey appPrivateKey, PublicKey alipayPublicKey, Optional<String> appAuthToken,
                       Optional<AlipayCertificateKeys> certificates) {

        /** Public-key mode. */
        public Keys(String appId, PrivateKey appPrivateKey, PublicKey alipayPublicKey, Optional<String> appAuthToken) {
            this(appId, appPrivateKey, alipayPublicKey, appAuthToken, Optional.empty());
        }

        /** Public-key certificate mode. */
        public static Keys certified(String appId, PrivateKey appPrivateKey, AlipayCertificateKeys certificates,
                                     Optional<String> appAuthToken) {
            return new Keys(appId, appPrivateKey, certificates.newest(), appAuthToken, Optional.of(certificates));
        }

        @Override
        public String toString() {
            return "Keys[appId=" + appId + (appAuthToken.isPresent() ? ", for an authorising merchant" : "") + "]";
        }
    }

    private final WebClient http;
    private final Tracing tracing;
    private final String gatewayUrl;
    private final Duration timeout;
    private final Clock clock;
    private final Map<String, Keys> merchants;
    private final Downloads downloads;

    public static AlipayClient of(ProviderClients.Context context, Map<String, Keys> merchants) {
        return new AlipayClient(context.http(), context.tracing(), context.alipayGatewayUrl(), context.timeout(), context.clock(), merchants, context.downloads());
    }

    private AlipayClient(WebClient http, Tracing tracing, String gatewayUrl, Duration timeout, Clock clock, Map<String, Keys> merchants,
                 Downloads downloads) {
        this.http = http;
        this.tracing = tracing;
        this.gatewayUrl = gatewayUrl;
        this.timeout = timeout;
        this.clock = clock;
        this.merchants = Map.copyOf(merchants);
        this.downloads = downloads;
    }

    @Override
    public ChannelId channel() {
        return ChannelId.ALIPAY;
    }

    @Override
    public Set<String> merchantIds() {
        return merchants.keySet();
    }

    /**
     * {@code alipay.data.dataservice.bill.downloadurl.query} (bill_type trade), signed and verified like every gateway
     * call; then a plain GET of the ZIP at {@code bill_download_url}, which is valid for 30 seconds, so it is fetched
     * at once. The file has no digest of its own: its totals lines are what the reader checks.
     */
    @Override
    public TradeBill tradeBill(String merchantId, LocalDate billDate) {
        ObjectNode biz = JSON.createObjectNode().put("bill_type", "trade").put("bill_date", billDate.toString());
        Duration limit = Downloads.atLeast(timeout);
        SignedFields answer = call(merchantId, BILL_URL, biz, limit).await().atMost(limit.plusSeconds(2));
        String subCode = answer.fields().get("sub_code");
        // Spelt isp.bill_not_exist in today's gateway and BILL_NOT_EXIST in older documents: accept either.
        if (!SUCCESS.equals(answer.fields().get("code")) && subCode != null
                && subCode.toLowerCase(Locale.ROOT).endsWith("bill_not_exist")) {
            return new TradeBill.Empty(subCode);
        }
        String url = succeeded(answer).get("bill_download_url");
        if (url == null || url.isEmpty()) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("answer without bill_download_url"));
        }
        return new TradeBill.File(downloads.get(PROVIDER, url, Map.of()), null);
    }

    @Override
    public Uni<PaymentAnswer> queryPayment(OrderRef order) {
        String merchantId = order.merchantId();
        ObjectNode biz = JSON.createObjectNode().put("out_trade_no", OutTradeNo.valueOrNull(order.outTradeNo()));
        return call(merchantId, QUERY, biz).map(answer -> {
            if (BUSINESS_FAILURE.equals(answer.fields().get("code"))
                    && "ACQ.TRADE_NOT_EXIST".equals(answer.fields().get("sub_code"))) {
                return new PaymentAnswer.NotPaid("TRADE_NOT_EXIST");
            }
            Map<String, String> trade = succeeded(answer);
            Notice notice = Parsing.read(PROVIDER, () -> AlipayChannel.payment(merchantId, trade));
            return notice instanceof Notice.Payment payment
                    ? new PaymentAnswer.Paid(payment, answer.body())
                    : new PaymentAnswer.NotPaid(trade.getOrDefault("trade_status", "unknown"));
        });
    }

    /** {@code fund_change=Y} means this call moved the money: the refund succeeded. Anything else waits for its notice. */
    @Override
    public Uni<RefundAnswer> submitRefund(RefundOrder refund) {
        ObjectNode biz = JSON.createObjectNode()
                .put("trade_no", ChannelTradeNo.valueOrNull(refund.channelTradeNo()))
                .put("out_trade_no", OutTradeNo.valueOrNull(refund.outTradeNo()))
                .put("refund_amount", refund.amount().amount().setScale(2).toPlainString())
                .put("out_request_no", refund.refundNo().value())
                .put("refund_reason", refund.reason());
        return call(refund.merchantId(), REFUND, biz).map(answer -> {
            Map<String, String> fields = succeeded(answer);
            Optional<Notice.Refund> settled = Optional.empty();
            if ("Y".equals(fields.get("fund_change"))) {
                String refundFee = fields.get("refund_fee");
                settled = Optional.of(new Notice.Refund(refund.merchantId(), ChannelId.ALIPAY, refund.refundNo(), null,
                        refund.channelTradeNo(), refund.outTradeNo(), Notice.RefundResult.SUCCEEDED, refund.amount(),
                        refundFee == null ? null : new Money(new BigDecimal(refundFee).setScale(2), refund.currency())));
            }
            return new RefundAnswer(null, settled, answer.body());
        });
    }

    /**
     * {@code ACQ.TRADE_NOT_EXIST}: the buyer never opened the payment, so nothing at Alipay can take money. {@code
     * ACQ.TRADE_STATUS_ERROR} (only WAIT_BUYER_PAY closes): paid, finished or closed already, which the query tells.
     */
    @Override
    public Uni<CloseAnswer> closePayment(OrderRef order) {
        String merchantId = order.merchantId();
        OutTradeNo outTradeNo = order.outTradeNo();
        return call(merchantId, CLOSE, closeContent(outTradeNo.value())).flatMap(answer -> {
            String subCode = answer.fields().get("sub_code");
            if (BUSINESS_FAILURE.equals(answer.fields().get("code")) && "ACQ.TRADE_NOT_EXIST".equals(subCode)) {
                return Uni.createFrom().item(new CloseAnswer.ClosedAtProvider(subCode));
            }
            if (BUSINESS_FAILURE.equals(answer.fields().get("code")) && "ACQ.TRADE_STATUS_ERROR".equals(subCode)) {
                return queryPayment(OrderRef.of(merchantId, outTradeNo))
                        .map(paid -> CloseDecision.decide(PROVIDER, paid, subCode, CLOSED_STATES));
            }
            succeeded(answer);
            return Uni.createFrom().item(new CloseAnswer.ClosedAtProvider(SUCCESS));
        });
    }

    static ObjectNode closeContent(String outTradeNo) {
        return JSON.createObjectNode().put("out_trade_no", outTradeNo);
    }

    /**
     * {@code refund_status=REFUND_SUCCESS} is the only final answer: without it the refund is not done (yet), and
     * Alipay's notice or a later query tells.
     */
    @Override
    public Uni<Optional<Notice.Refund>> queryRefund(RefundOrder refund, String channelRefundId) {
        return call(refund.merchantId(), REFUND_QUERY, refundQueryContent(refund)).map(answer -> {
            Map<String, String> fields = succeeded(answer);
            if (!"REFUND_SUCCESS".equals(fields.get("refund_status"))) {
                return Optional.empty();
            }
            String amount = fields.get("refund_amount");
            if (amount == null || !refund.refundNo().value().equals(fields.get("out_request_no"))) {
                throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer(
                        "refund query answer without refund_amount or for another out_request_no"));
            }
            BigDecimal own = Parsing.read(PROVIDER, () -> AlipayChannel.yuan(amount, "refund_amount"));
            return Optional.of(new Notice.Refund(refund.merchantId(), ChannelId.ALIPAY, refund.refundNo(), null,
                    refund.channelTradeNo(), refund.outTradeNo(), Notice.RefundResult.SUCCEEDED, new Money(own, "CNY"), null));
        });
    }

    /**
     * {@code gmt_refund_pay} is only returned when asked for; {@code refund_amount} is then this request's own amount
     * (a partial refund's part), {@code total_amount} the whole trade's.
     */
    static ObjectNode refundQueryContent(RefundOrder refund) {
        ObjectNode biz = JSON.createObjectNode()
                .put("trade_no", ChannelTradeNo.valueOrNull(refund.channelTradeNo()))
                .put("out_request_no", refund.refundNo().value());
        biz.putArray("query_options").add("gmt_refund_pay");
        return biz;
    }

    /** A verified answer: its fields as text, and the body as received. */
    private record SignedFields(Map<String, String> fields, byte[] body) {
    }

    private Uni<SignedFields> call(String merchantId, String method, ObjectNode bizContent) {
        return call(merchantId, method, bizContent, timeout);
    }

    private Uni<SignedFields> call(String merchantId, String method, ObjectNode bizContent, Duration timeout) {
        Keys keys = merchants.get(merchantId);
        return post(keys, method, bizContent, timeout).flatMap(response -> verified(keys, method, response));
    }

    private Uni<ProviderHttp.Response> post(Keys keys, String method, ObjectNode bizContent, Duration timeout) {
        Map<String, String> params = signedParams(keys.appId(), keys.appAuthToken(), keys.certificates(),
                keys.appPrivateKey(), method, bizContent, clock.instant());
        String form = params.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        var request = http.requestAbs(HttpMethod.POST, gatewayUrl)
                .putHeader("Content-Type", "application/x-www-form-urlencoded;charset=utf-8");
        return ProviderHttp.send(tracing, PROVIDER, request, form.getBytes(StandardCharsets.UTF_8), timeout);
    }

    /** The gateway's common parameters and {@code sign} over them, in the order they are sent. */
    static Map<String, String> signedParams(String appId, PrivateKey key, String method, ObjectNode bizContent,
                                            Instant now) {
        return signedParams(appId, Optional.empty(), key, method, bizContent, now);
    }

    /**
     * The same for a third-party app calling for a merchant: {@code app_auth_token} is a common parameter beside
     * {@code biz_content}, covered by the signature like the others (alipay-sdk-java's {@code AbstractAlipayClient}).
     */
    static Map<String, String> signedParams(String appId, Optional<String> appAuthToken, PrivateKey key, String method,
                                            ObjectNode bizContent, Instant now) {
        return signedParams(appId, appAuthToken, Optional.empty(), key, method, bizContent, now);
    }

    /**
     * In public-key certificate mode every request also carries {@code app_cert_sn} and {@code alipay_root_cert_sn},
     * signed like the others (alipay-sdk-java's {@code CertAlipayRequest}).
     */
    static Map<String, String> signedParams(String appId, Optional<String> appAuthToken,
                                            Optional<AlipayCertificateKeys> certificates, PrivateKey key, String method,
                                            ObjectNode bizContent, Instant now) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("app_id", appId);
        params.put("method", method);
        params.put("format", "JSON");
        params.put("charset", "utf-8");
        params.put("sign_type", "RSA2");
        params.put("timestamp", TIMESTAMP.format(now));
        params.put("version", "1.0");
        appAuthToken.ifPresent(token -> params.put("app_auth_token", token));
        certificates.ifPresent(certified -> {
            params.put("app_cert_sn", certified.appCertSn());
            params.put("alipay_root_cert_sn", certified.rootCertSn());
        });
        params.put("biz_content", bizContent.toString());
        params.put("sign", AlipayGatewayMessages.sign(key, params));
        return params;
    }

    /**
     * In public-key certificate mode an answer names the SN of the certificate that signed it: one not held is
     * downloaded first ({@link #alipayCertificate}), as alipay-sdk-java does when Alipay moves to a new certificate.
     */
    private Uni<SignedFields> verified(Keys keys, String method, ProviderHttp.Response response) {
        AlipayGatewayMessages.GatewayAnswer answer = answer(method, response);
        Optional<String> sn = answer.alipayCertSn().filter(named -> keys.certificates().isPresent());
        if (sn.isEmpty()) {
            return Uni.createFrom().item(() -> fields(answer, keys.certificates().map(AlipayCertificateKeys::newest)
                    .orElse(keys.alipayPublicKey()), response));
        }
        AlipayCertificateKeys certificates = keys.certificates().get();
        Optional<PublicKey> held = certificates.bySn(sn.get());
        if (held.isPresent()) {
            return Uni.createFrom().item(() -> fields(answer, held.get(), response));
        }
        return alipayCertificate(keys, certificates, sn.get()).map(key -> fields(answer, key, response));
    }

    private static AlipayGatewayMessages.GatewayAnswer answer(String method, ProviderHttp.Response response) {
        if (response.status() >= 500) {
            throw new ProviderException(PROVIDER, new ProviderFailure.ServerError(response.status(), null));
        }
        String body = new String(response.body(), StandardCharsets.UTF_8);
        return AlipayGatewayMessages.answer(body, method)
                .orElseThrow(() -> new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("no " + method + " answer")));
    }

    /**
     * {@code alipay.open.app.alipaycert.download} for an SN an answer named: {@code alipay_cert_content} is the new
     * certificate's PEM in base64. Its answer is not signed by a key we hold (that is why it is asked for); the
     * certificate is trusted because it chains to the root configured, and is the certificate of that SN. An SN that
     * failed is not asked for again for a minute.
     */
    private Uni<PublicKey> alipayCertificate(Keys keys, AlipayCertificateKeys certificates, String sn) {
        if (certificates.recentlyFailed(sn)) {
            return Uni.createFrom().failure(new ProviderException(PROVIDER, new ProviderFailure.BadAnswer(
                    "answer signed by alipay_cert_sn " + sn + ", which did not download")));
        }
        return post(keys, CERT_DOWNLOAD, JSON.createObjectNode().put("alipay_cert_sn", sn), timeout)
                .map(response -> {
                    Map<String, String> fields = fieldsOf(answer(CERT_DOWNLOAD, response));
                    String content = fields.get("alipay_cert_content");
                    if (!SUCCESS.equals(fields.get("code")) || content == null || content.isBlank()) {
                        throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("certificate " + sn
                                + " was not downloaded: " + fields.getOrDefault("sub_code", fields.get("code"))));
                    }
                    try {
                        return certificates.learn(sn, new String(Base64.getMimeDecoder().decode(content), StandardCharsets.UTF_8));
                    } catch (IllegalArgumentException e) {
                        throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer(e.getMessage()));
                    }
                })
                .onFailure().invoke(failure -> certificates.failed(sn));
    }

    private static SignedFields fields(AlipayGatewayMessages.GatewayAnswer answer, PublicKey key,
                                       ProviderHttp.Response response) {
        if (!answer.verifies(key)) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("answer sign does not verify"));
        }
        return new SignedFields(fieldsOf(answer), response.body());
    }

    private static Map<String, String> fieldsOf(AlipayGatewayMessages.GatewayAnswer answer) {
        Map<String, String> fields = new HashMap<>();
        try {
            JSON.readTree(answer.responseJson()).fields().forEachRemaining(field ->
                    fields.put(field.getKey(), field.getValue().isValueNode() ? field.getValue().asText() : field.getValue().toString()));
        } catch (Exception e) {
            throw new ProviderException(PROVIDER, new ProviderFailure.BadAnswer("answer is not JSON"));
        }
        return fields;
    }

    private static Map<String, String> succeeded(SignedFields answer) {
        String code = answer.fields().getOrDefault("code", "");
        if (SUCCESS.equals(code)) {
            return answer.fields();
        }
        String subCode = answer.fields().get("sub_code");
        if (UNAVAILABLE.equals(code) || "ACQ.SYSTEM_ERROR".equals(subCode)) {
            throw new ProviderException(PROVIDER, new ProviderFailure.ServerError(200, subCode == null ? code : subCode));
        }
        throw new ProviderException(PROVIDER, new ProviderFailure.Rejected(200, subCode == null ? code : subCode,
                answer.fields().get("sub_msg")));
    }
}
