package io.paycallback.channel.stripe;

import io.paycallback.channel.Rejection;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/** {@code Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]}; other schemes (v0) are ignored. */
record SignatureHeader(long timestamp, List<byte[]> v1Signatures) {

    /** A v1 value of any other shape can never match, so it is not a candidate. */
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

    static SignatureHeader parse(String header) throws Rejection {
        if (header == null || header.isBlank()) {
            throw Rejection.badSignature("missing Stripe-Signature");
        }
        String timestamp = null;
        List<byte[]> signatures = new ArrayList<>();
        for (String item : header.split(",")) {
            int equals = item.indexOf('=');
            if (equals < 0) {
                continue;
            }
            String key = item.substring(0, equals).strip();
            String value = item.substring(equals + 1).strip();
            if (key.equals("t") && timestamp == null) {
                timestamp = value;
            } else if (key.equals("v1") && SHA256_HEX.matcher(value).matches()) {
                signatures.add(HexFormat.of().parseHex(value));
            }
        }
        if (timestamp == null) {
            throw Rejection.badSignature("Stripe-Signature without timestamp");
        }
        if (signatures.isEmpty()) {
            throw Rejection.badSignature("Stripe-Signature without v1 signature");
        }
        try {
            return new SignatureHeader(Long.parseLong(timestamp), signatures);
        } catch (NumberFormatException e) {
            throw Rejection.badSignature("Stripe-Signature timestamp is not a number");
        }
    }
}
