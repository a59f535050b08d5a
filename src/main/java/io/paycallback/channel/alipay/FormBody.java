package io.paycallback.channel.alipay;

import io.paycallback.channel.Rejection;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An {@code application/x-www-form-urlencoded} body in the charset it declares in its own {@code charset} parameter.
 * Decoding happens on bytes: percent escapes are multi-byte sequences of that charset (GBK for many Alipay apps).
 */
record FormBody(Charset charset, Map<String, String> params) {

    private static final Map<String, Charset> SUPPORTED = Map.of(
            "utf-8", StandardCharsets.UTF_8,
            "utf8", StandardCharsets.UTF_8,
            "gbk", Charset.forName("GBK"),
            "gb2312", Charset.forName("GBK"));

    static FormBody parse(byte[] body) throws Rejection {
        Charset charset = declaredCharset(body);
        Map<String, String> params = new LinkedHashMap<>();
        int start = 0;
        while (start <= body.length) {
            int end = indexOf(body, (byte) '&', start);
            if (end > start) {
                int equals = indexOf(body, (byte) '=', start);
                if (equals < 0 || equals > end) {
                    equals = end;
                }
                String name = decode(body, start, equals, charset);
                String value = equals < end ? decode(body, equals + 1, end, charset) : "";
                if (params.putIfAbsent(name, value) != null) {
                    throw Rejection.badSignature("duplicate form parameter");
                }
            }
            start = end + 1;
        }
        return new FormBody(charset, params);
    }

    /** Parameter names and charset names are ASCII, so the declaration can be found before the charset is known. */
    private static Charset declaredCharset(byte[] body) throws Rejection {
        byte[] marker = "charset=".getBytes(StandardCharsets.US_ASCII);
        int start = 0;
        while (start < body.length) {
            int end = indexOf(body, (byte) '&', start);
            if (startsWith(body, start, marker)) {
                String name = decode(body, start + marker.length, end, StandardCharsets.US_ASCII).strip().toLowerCase(Locale.ROOT);
                Charset charset = SUPPORTED.get(name);
                if (charset == null) {
                    throw Rejection.badSignature("unsupported charset");
                }
                return charset;
            }
            start = end + 1;
        }
        return StandardCharsets.UTF_8;
    }

    private static String decode(byte[] body, int from, int to, Charset charset) throws Rejection {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            byte b = body[i];
            if (b == '+') {
                bytes.write(' ');
            } else if (b == '%') {
                if (i + 2 >= to) {
                    throw Rejection.badSignature("truncated percent escape");
                }
                int high = Character.digit(body[i + 1], 16);
                int low = Character.digit(body[i + 2], 16);
                if (high < 0 || low < 0) {
                    throw Rejection.badSignature("invalid percent escape");
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else {
                bytes.write(b);
            }
        }
        try {
            return charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw Rejection.badSignature("form value is not valid in the declared charset");
        }
    }

    private static int indexOf(byte[] body, byte wanted, int from) {
        for (int i = from; i < body.length; i++) {
            if (body[i] == wanted) {
                return i;
            }
        }
        return body.length;
    }

    private static boolean startsWith(byte[] body, int offset, byte[] prefix) {
        if (offset + prefix.length > body.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (body[offset + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
