package io.paycallback.provider;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.paycallback.channel.Signatures;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Alipay OpenAPI requests and answers. A request is signed over its sorted {@code k=v&...} parameters without
 * {@code sign} (sign_type included, unlike a notice's check); an answer's {@code sign} covers the exact text of its
 * {@code <method>_response} JSON value, so that text is cut out of the body as received, never re-serialised.
 */
public final class AlipayGatewayMessages {

    private static final JsonFactory JSON = new JsonFactory();

    private AlipayGatewayMessages() {
    }

    public static String signContent(Map<String, String> params) {
        return new TreeMap<>(params).entrySet().stream()
                .filter(e -> !e.getKey().equals("sign"))
                .filter(e -> e.getValue() != null && !e.getValue().isEmpty())
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("&"));
    }

    public static String sign(PrivateKey appKey, Map<String, String> params) {
        return RsaSigning.sign(appKey, signContent(params).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The method's answer as signed text and its signature.
     *
     * @param alipayCertSn in public-key certificate mode, the SN of Alipay's certificate that signed it
     */
    public record GatewayAnswer(String responseJson, String sign, Optional<String> alipayCertSn) {

        public boolean verifies(PublicKey alipayPublicKey) {
            return sign != null && Signatures.sha256WithRsa(alipayPublicKey,
                    responseJson.getBytes(StandardCharsets.UTF_8), sign);
        }
    }

    /**
     * @param method e.g. {@code alipay.trade.query}; its answer is under {@code alipay_trade_query_response}, a gateway
     *               error under {@code error_response}
     */
    public static Optional<GatewayAnswer> answer(String body, String method) {
        String wanted = method.replace('.', '_') + "_response";
        String response = null;
        String sign = null;
        String certSn = null;
        try (JsonParser parser = JSON.createParser(body)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                if ((name.equals(wanted) || name.equals("error_response")) && value == JsonToken.START_OBJECT) {
                    int start = (int) parser.currentTokenLocation().getCharOffset();
                    parser.skipChildren();
                    int end = (int) parser.currentLocation().getCharOffset();
                    response = body.substring(start, end);
                } else if (name.equals("sign") && value == JsonToken.VALUE_STRING) {
                    sign = parser.getText();
                } else if (name.equals("alipay_cert_sn") && value == JsonToken.VALUE_STRING) {
                    certSn = parser.getText();
                } else {
                    parser.skipChildren();
                }
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return response == null ? Optional.empty()
                : Optional.of(new GatewayAnswer(response, sign, Optional.ofNullable(certSn).filter(sn -> !sn.isBlank())));
    }
}
