package io.paycallback.channel;

import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded property runner and the hostile inputs the channel properties draw from. Every try gets its own generator
 * derived from the run's seed and the try's index, so a failure names both and {@code -Dfuzz.seed=<seed>} replays the
 * run exactly. The seed differs per run unless given, so CI covers new cases on every submission.
 *
 * <p>Written here rather than taken from jqwik: jqwik 1.10 runs on JUnit Platform 1.x while the Quarkus BOM brings
 * JUnit 6, and its maintainers ask that it not be used by coding agents.
 */
public final class Fuzz {

    /** Tries of each property; each channel runs several properties, at least 100k tries in all. */
    public static final int TRIES = Integer.getInteger("fuzz.tries", 40_000);
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final Charset GBK = Charset.forName("GBK");
    private static final String[] HOSTILE_TEXT = {
            "", " ", "\t", "null", "true", "0", "-1", "1e400", "99999999999999999999999999", "-0", "0x10", "NaN",
            "\r\nX-Injected: yes", "\u0000", "\uFEFF", "\u202E", "\uD83D\uDCB0", "\u652F\u4ED8\u6210\u529F", "%", "%zz",
            "%E4%B8", "&", "=", "+", "'\"<>", "\\u0000", "SUCCESS", "TRADE_SUCCESS", "payment_intent.succeeded"};
    private static final String[] HOSTILE_JSON = {
            "null", "true", "false", "0", "-1", "1.5", "-0.0", "1e400", "123456789012345678901234567890", "9223372036854775808",
            "-9223372036854775809", "9223372036854775807", "100000000000000000", "1000000000000000000", "\"\"", "\" \"", "[]", "{}", "[1,2]", "{\"a\":1}", "\"\\ud800\"", "\"\\u0000\"", "NaN",
            "Infinity", "01", "+1", "1e-7", "\"123\""};

    private final SplittableRandom random;

    private Fuzz(SplittableRandom random) {
        this.random = random;
    }

    /**
     * Runs {@code property} {@code tries} times and prints the run time, so CI logs show what the tries cost. Any
     * exception or assertion failure is rethrown with the seed and the try that produced it.
     */
    public static void forAll(String name, int tries, Consumer<Fuzz> property) {
        long started = System.nanoTime();
        for (int i = 0; i < tries; i++) {
            try {
                property.accept(new Fuzz(new SplittableRandom(SEED * 0x9E3779B97F4A7C15L + i)));
            } catch (Throwable failure) {
                throw new AssertionError(name + " failed at try " + i + " of seed " + SEED
                        + " (replay with -Dfuzz.seed=" + SEED + "): " + failure, failure);
            }
        }
        System.out.printf("fuzz %s: %d tries in %.1f s (seed %d)%n", name, tries, (System.nanoTime() - started) / 1e9, SEED);
    }

    public int nextInt(int bound) {
        return random.nextInt(bound);
    }

    public boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    public <T> T pick(T[] values) {
        return values[random.nextInt(values.length)];
    }

    public long nextLong(long from, long to) {
        return random.nextLong(from, to);
    }

    public byte[] bytes(int maxLength) {
        byte[] bytes = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Text of the kinds providers never send: control and bidi characters, lone surrogates, injections, numbers. */
    public String text() {
        return switch (random.nextInt(6)) {
            case 0 -> pick(HOSTILE_TEXT);
            case 1 -> pick(HOSTILE_TEXT) + pick(HOSTILE_TEXT);
            case 2 -> randomUnicode(random.nextInt(40));
            case 3 -> Long.toString(random.nextLong());
            case 4 -> "A".repeat(random.nextInt(70_000));
            default -> Base64.getEncoder().encodeToString(bytes(random.nextInt(4) == 0 ? 60_000 : 64));
        };
    }

    /** A raw JSON value of the wrong type, range or encoding, as bytes: some are not valid UTF-8 on purpose. */
    public byte[] jsonValue() {
        return switch (random.nextInt(7)) {
            case 0, 1 -> pick(HOSTILE_JSON).getBytes(StandardCharsets.UTF_8);
            case 2 -> ("\"" + jsonEscape(text()) + "\"").getBytes(StandardCharsets.UTF_8);
            case 3 -> concat("\"".getBytes(StandardCharsets.US_ASCII), "\u652F\u4ED8\u6210\u529F".getBytes(GBK),
                    "\"".getBytes(StandardCharsets.US_ASCII));
            case 4 -> concat("\"".getBytes(StandardCharsets.US_ASCII), bytes(12), "\"".getBytes(StandardCharsets.US_ASCII));
            case 5 -> ("[".repeat(1 + random.nextInt(3000)) + "1").getBytes(StandardCharsets.US_ASCII);
            default -> ("1" + "0".repeat(random.nextInt(2000))).getBytes(StandardCharsets.US_ASCII);
        };
    }

    /** One to three byte-level mutations: flips, cuts, insertions, duplications and truncation. */
    public byte[] mutate(byte[] original) {
        byte[] bytes = original.clone();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            bytes = mutateOnce(bytes);
        }
        return bytes;
    }

    private byte[] mutateOnce(byte[] bytes) {
        if (bytes.length == 0) {
            return bytes(8);
        }
        int at = random.nextInt(bytes.length);
        return switch (random.nextInt(7)) {
            case 0 -> {
                bytes[at] ^= (byte) (1 << random.nextInt(8));
                yield bytes;
            }
            case 1 -> {
                bytes[at] = (byte) random.nextInt(256);
                yield bytes;
            }
            case 2 -> slice(bytes, 0, at);
            case 3 -> concat(slice(bytes, 0, at), slice(bytes, Math.min(bytes.length, at + 1 + random.nextInt(16)), bytes.length));
            case 4 -> concat(slice(bytes, 0, at), jsonValue(), slice(bytes, at, bytes.length));
            case 5 -> concat(slice(bytes, 0, at), text().getBytes(StandardCharsets.UTF_8), slice(bytes, at, bytes.length));
            default -> {
                int end = Math.min(bytes.length, at + 1 + random.nextInt(32));
                yield concat(slice(bytes, 0, end), slice(bytes, at, end), slice(bytes, end, bytes.length));
            }
        };
    }

    private String randomUnicode(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) random.nextInt(0x10000));
        }
        return text.toString();
    }

    /**
     * A JSON object of the given fields (raw JSON values), each kept with probability {@code 1 - damage} and otherwise
     * dropped, duplicated with a hostile second value, or replaced by a hostile value; {@code damaged} learns whether any
     * was. Nested objects are built the same way by the caller, so damage reaches every level.
     */
    public byte[] object(Map<String, byte[]> fields, double damage, boolean[] damaged) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write('{');
        boolean first = true;
        for (var field : fields.entrySet()) {
            byte[] value = field.getValue();
            boolean duplicate = false;
            if (chance(damage)) {
                damaged[0] = true;
                int kind = random.nextInt(3);
                if (kind == 0) {
                    continue;
                }
                duplicate = kind == 1;
                if (!duplicate) {
                    value = jsonValue();
                }
            }
            for (byte[] written : duplicate ? new byte[][]{value, jsonValue()} : new byte[][]{value}) {
                if (!first) {
                    out.write(',');
                }
                first = false;
                out.writeBytes(("\"" + field.getKey() + "\":").getBytes(StandardCharsets.UTF_8));
                out.writeBytes(written);
            }
        }
        out.write('}');
        return out.toByteArray();
    }

    public static byte[] json(String text) {
        return ("\"" + jsonEscape(text) + "\"").getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] json(long number) {
        return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * What a channel accepts must fit the ledger's columns (VARCHAR(64) numbers, VARCHAR(32) states, DECIMAL(18,2)
     * amounts): a notice that does not would fail its INSERT on every delivery, answered 500 for days and never
     * quarantined.
     */
    /**
     * What every channel owes a signed body, however hostile: it is accepted or malformed (quarantined), parsing it
     * again from storage gives the same verdict, an undamaged one reads as what was signed, and whatever is accepted
     * fits the ledger.
     */
    public static void assertSignedVerdict(Channel channel, CallbackRequest request, boolean damaged, Notice expected) {
        ChannelVerdict verdict = channel.read(request);
        assertThat(verdict).isInstanceOfAny(ChannelVerdict.Accepted.class, ChannelVerdict.Malformed.class);
        assertThat(channel.parseStored(request)).isEqualTo(verdict);
        if (!damaged) {
            assertThat(verdict).isEqualTo(new ChannelVerdict.Accepted(expected));
        } else if (verdict instanceof ChannelVerdict.Accepted accepted) {
            assertStorable(accepted.notice());
        }
    }

    /** The same notice, of another merchant: what a platform's notice reads as for the sub-merchant it names. */
    public static Notice ofMerchant(Notice notice, String merchantId) {
        if (notice instanceof Notice.Payment p) {
            return new Notice.Payment(merchantId, p.channel(), p.channelTradeNo(), p.outTradeNo(), p.tradeState(),
                    p.amount());
        }
        if (notice instanceof Notice.Refund r) {
            return new Notice.Refund(merchantId, r.channel(), r.refundNo(), r.channelRefundId(), r.channelTradeNo(),
                    r.outTradeNo(), r.result(), r.amount(), r.refundedTotal());
        }
        if (notice instanceof Notice.RefundPending r) {
            return new Notice.RefundPending(merchantId, r.channel(), r.refundNo(), r.channelRefundId(), r.channelTradeNo(),
                    r.outTradeNo(), r.amount());
        }
        return notice;
    }

    public static void assertStorable(Notice notice) {
        if (notice instanceof Notice.Payment payment) {
            assertThat(List.of(payment.channelTradeNo().value(), payment.outTradeNo().value())).allSatisfy(Fuzz::assertNumber);
            assertThat(payment.tradeState()).isNotBlank().hasSizeLessThanOrEqualTo(32);
            assertAmount(payment.amount());
        } else if (notice instanceof Notice.Refund refund) {
            assertNumber(refund.refundNo().value());
            Stream.of(refund.channelRefundId(), ChannelTradeNo.valueOrNull(refund.channelTradeNo()),
                    OutTradeNo.valueOrNull(refund.outTradeNo())).filter(Objects::nonNull).forEach(Fuzz::assertNumber);
            Stream.of(refund.amount(), refund.refundedTotal()).filter(Objects::nonNull).forEach(Fuzz::assertAmount);
        } else if (notice instanceof Notice.Combined combined) {
            combined.payments().forEach(Fuzz::assertStorable);
        } else if (notice instanceof Notice.RefundPending pending) {
            assertNumber(pending.refundNo().value());
            Stream.of(pending.channelRefundId(), ChannelTradeNo.valueOrNull(pending.channelTradeNo()),
                    OutTradeNo.valueOrNull(pending.outTradeNo())).filter(Objects::nonNull).forEach(Fuzz::assertNumber);
            assertAmount(pending.amount());
        } else {
            assertThat(((Notice.Ignored) notice).reason()).isNotBlank();
        }
    }

    private static void assertNumber(String number) {
        assertThat(number).isNotBlank();
        assertThat(number.codePointCount(0, number.length())).isLessThanOrEqualTo(64);
    }

    private static void assertAmount(Money money) {
        assertThat(money.amount()).isNotNegative().isLessThan(new BigDecimal("1E16"));
        assertThat(money.amount().stripTrailingZeros().scale()).isLessThanOrEqualTo(2);
        assertThat(money.currency()).hasSize(3);
    }

    public static String jsonEscape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                escaped.append('\\').append(c);
            } else if (c < 0x20) {
                escaped.append(String.format("\\u%04x", (int) c));
            } else {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }

    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] slice(byte[] bytes, int from, int to) {
        byte[] slice = new byte[to - from];
        System.arraycopy(bytes, from, slice, 0, slice.length);
        return slice;
    }
}
