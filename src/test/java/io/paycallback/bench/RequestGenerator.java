package io.paycallback.bench;

import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.SignedCallback;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Pre-signs callbacks for deploy/bench/run.sh, because wrk's Lua cannot sign. Two commands:
 * <pre>
 *   keys     DIR                                     merchant keys: DIR/app.properties (what the service gets),
 *                                                   DIR/provider.properties (private halves, for later signing)
 *   requests DIR CHANNEL COUNT PREFIX OUT [same]     COUNT raw HTTP requests for stripe|wxpay, order numbers
 *                                                   PREFIX0..PREFIX{COUNT-1}; "same" repeats one callback
 * </pre>
 * The request file is a sequence of records "{byte length}\n{raw HTTP/1.1 request}", which deploy/bench/ingest.lua
 * reads. Every callback is for 88.00 (8800 minor units): USD for Stripe, CNY for WeChat Pay, so the run script can
 * create the matching PENDING orders with one INSERT ... SELECT.
 */
public final class RequestGenerator {

    public static final long AMOUNT_MINOR = 8800;

    private RequestGenerator() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("keys")) {
            keys(Path.of(args[1]));
        } else if (args.length >= 6 && args[0].equals("requests")) {
            requests(load(Path.of(args[1])), args[2], Integer.parseInt(args[3]), args[4], Path.of(args[5]),
                    args.length > 6 && args[6].equals("same"));
        } else {
            System.err.println("usage: keys DIR | requests DIR stripe|wxpay COUNT PREFIX OUT [same]");
            System.exit(2);
        }
    }

    private static void keys(Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, String> all = new TreeMap<>(ProviderKeys.generate().asConfig());
        // One "key=value" line per entry, unescaped, so the shell can turn each into a -D option as is.
        try (Writer out = Files.newBufferedWriter(dir.resolve("app.properties"))) {
            for (Map.Entry<String, String> entry : all.entrySet()) {
                if (entry.getKey().startsWith("paycallback.")) {
                    out.write(entry.getKey() + "=" + entry.getValue() + "\n");
                }
            }
        }
        Properties provider = new Properties();
        provider.putAll(all);
        try (Writer out = Files.newBufferedWriter(dir.resolve("provider.properties"))) {
            provider.store(out, "bench keys: private halves, never for production");
        }
    }

    /** The keys {@code keys DIR} wrote, with their private halves. */
    static ProviderKeys load(Path dir) throws IOException, GeneralSecurityException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(dir.resolve("provider.properties"))) {
            p.load(in);
        }
        String merchant = "paycallback.merchants." + ProviderKeys.MERCHANT + ".";
        return new ProviderKeys(p.getProperty(merchant + "wxpay.mchid"), ProviderKeys.WX_SERIAL,
                privateKey(p.getProperty("test.provider-keys.wx-private")), p.getProperty("test.provider-keys.wx-public"),
                p.getProperty(merchant + "wxpay.api-v3-key"), p.getProperty(merchant + "alipay.app-id"),
                privateKey(p.getProperty("test.provider-keys.alipay-private")),
                p.getProperty("test.provider-keys.alipay-public"), p.getProperty(merchant + "stripe.webhook-secrets"),
                p.getProperty("test.provider-keys.stripe-connect-secret"));
    }

    private static PrivateKey privateKey(String base64Pkcs8) throws GeneralSecurityException {
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64Pkcs8)));
    }

    private static void requests(ProviderKeys keys, String channel, int count, String prefix, Path out, boolean same)
            throws IOException {
        ProviderSigner signer = new ProviderSigner(keys);
        // Signed "now": the providers' windows (WeChat +-5 min, Stripe +-300 s) start here, so the script sends at once.
        Instant now = Instant.now();
        int distinct = same ? 1 : count;
        // RSA signing dominates for wxpay; both cores cut the time the timestamps age before the run.
        byte[][] records = IntStream.range(0, distinct).parallel()
                .mapToObj(i -> raw(sign(signer, channel, prefix + i, now)))
                .toArray(byte[][]::new);
        try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(out), 1 << 20)) {
            for (int i = 0; i < count; i++) {
                byte[] record = records[same ? 0 : i];
                file.write((record.length + "\n").getBytes(StandardCharsets.US_ASCII));
                file.write(record);
            }
        }
    }

    private static SignedCallback sign(ProviderSigner signer, String channel, String outTradeNo, Instant now) {
        return switch (channel) {
            case "stripe" -> signer.stripePayment(outTradeNo, "pi_" + outTradeNo, AMOUNT_MINOR, "usd", now);
            case "wxpay" -> signer.wxPayment(outTradeNo, "42" + outTradeNo, AMOUNT_MINOR, "SUCCESS", now);
            default -> throw new IllegalArgumentException("channel must be stripe or wxpay: " + channel);
        };
    }

    private static byte[] raw(SignedCallback callback) {
        StringBuilder head = new StringBuilder()
                .append("POST /pay/callback/").append(callback.channel()).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:8080\r\n")
                .append("Content-Type: ").append(callback.contentType()).append("\r\n")
                .append("Content-Length: ").append(callback.body().length).append("\r\n");
        callback.headers().forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.UTF_8);
        byte[] record = new byte[headBytes.length + callback.body().length];
        System.arraycopy(headBytes, 0, record, 0, headBytes.length);
        System.arraycopy(callback.body(), 0, record, headBytes.length, callback.body().length);
        return record;
    }
}
