package io.paycallback.channel;

import java.util.Locale;
import java.util.Map;

/**
 * What arrived on the wire, untouched: the raw body is what signatures are computed over.
 *
 * @param headers header names in lower case
 */
public record CallbackRequest(String merchantId, CallbackKind kind, Map<String, String> headers, byte[] body) {

    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}
