package io.paycallback.testsupport;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A callback exactly as a provider would send it: headers and the raw body bytes the signature covers. */
public record SignedCallback(String channel, Map<String, String> headers, String contentType, byte[] body) {

    public String bodyAsString(Charset charset) {
        return new String(body, charset);
    }

    public String bodyAsUtf8() {
        return bodyAsString(StandardCharsets.UTF_8);
    }
}
