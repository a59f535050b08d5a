package io.paycallback.fault;

import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.SignedCallback;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Orders and their payment callbacks as providers send them: each callback three times, the first two copies at the same
 * instant to both instances, the third a little later to either. Every answer is counted by status; a callback counts
 * as acknowledged once any copy was answered 200.
 */
final class Load {

    /** Not an HTTP status: the connection was refused, so the request never reached a server. */
    static final int REFUSED = -1;
    /** Not an HTTP status: the request was sent but no answer came (reset, closed or timed out). */
    static final int UNANSWERED = -2;

    /** One signed notice, sent as its copies; {@code key} names it in {@link #acknowledged()}. */
    interface Notice {
        String key();

        String path();

        SignedCallback callback();
    }

    record Payment(String outTradeNo, String tradeNo, String currency, SignedCallback callback) implements Notice {
        @Override
        public String key() {
            return tradeNo;
        }

        @Override
        public String path() {
            return "/pay/callback/" + callback.channel();
        }
    }

    record Refund(String outTradeNo, String refundNo, long fen, SignedCallback callback) implements Notice {
        @Override
        public String key() {
            return refundNo;
        }

        @Override
        public String path() {
            return "/refund/callback/" + callback.channel();
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .executor(Executors.newFixedThreadPool(8)).build();
    private final ExecutorService senders = Executors.newFixedThreadPool(24);
    private final Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
    private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<String> sent = ConcurrentHashMap.newKeySet();

    static List<Payment> payments(ProviderSigner signer, String scenario, int count) {
        List<Payment> payments = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String order = "F" + scenario + "-" + i;
            String tradeNo = "T" + scenario + Long.toString(System.nanoTime(), 36) + i;
            payments.add(switch (i % 3) {
                case 0 -> new Payment(order, tradeNo, "CNY", signer.wxPayment(order, tradeNo, 100, "SUCCESS", Instant.now()));
                case 1 -> new Payment(order, tradeNo, "CNY", signer.alipayPayment(order, tradeNo, new BigDecimal("1.00"), "TRADE_SUCCESS"));
                default -> new Payment(order, tradeNo, "USD", signer.stripePayment(order, tradeNo, 100, "usd", Instant.now()));
            });
        }
        return payments;
    }

    /** A refund of {@code fen} for each WeChat Pay payment, by a refund number of its own. */
    static List<Refund> refunds(ProviderSigner signer, List<Payment> payments, long fen) {
        List<Refund> refunds = new ArrayList<>();
        for (Payment payment : payments) {
            if ("wxpay".equals(payment.callback().channel())) {
                String refundNo = "R" + payment.outTradeNo();
                refunds.add(new Refund(payment.outTradeNo(), refundNo, fen, signer.wxRefund(payment.outTradeNo(),
                        payment.tradeNo(), refundNo, "W" + refundNo, 100, fen, "SUCCESS", Instant.now())));
            }
        }
        return refunds;
    }

    /** Registers the orders through the order API of {@code instance}, as the order service does. */
    void register(ServiceInstance instance, String token, List<Payment> payments) throws Exception {
        for (Payment payment : payments) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(instance.base().resolve("/internal/orders"))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"outTradeNo\":\"" + payment.outTradeNo()
                            + "\",\"amount\":\"1.00\",\"currency\":\"" + payment.currency() + "\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 201) {
                throw new IllegalStateException("order " + payment.outTradeNo() + ": " + response.statusCode() + " " + response.body());
            }
        }
    }

    /**
     * Sends every payment's three copies, {@code pace} between payments; {@code target} picks the instance for a copy
     * (0 and 1 for the simultaneous pair, 2 for the later one), so a scenario can steer traffic around what it breaks.
     */
    void send(List<? extends Notice> payments, Duration pace, IntFunction<ServiceInstance> target) throws Exception {
        List<Future<?>> copies = new ArrayList<>();
        for (Notice payment : payments) {
            sent.add(payment.key());
            copies.add(senders.submit(() -> post(target.apply(0), payment)));
            copies.add(senders.submit(() -> post(target.apply(1), payment)));
            copies.add(senders.submit(() -> {
                Thread.sleep(300);
                post(target.apply(2), payment);
                return null;
            }));
            Thread.sleep(pace.toMillis());
        }
        for (Future<?> copy : copies) {
            copy.get();
        }
    }

    private void post(ServiceInstance instance, Notice payment) {
        int status;
        try {
            status = post(http, instance, payment.path(), payment.callback());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        answers.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
        if (status == 200) {
            acknowledged.add(payment.key());
        }
    }

    /** One copy of {@code callback} posted to {@code path}: the answer's status, {@link #REFUSED} or {@link #UNANSWERED}. */
    static int post(HttpClient http, ServiceInstance instance, String path, SignedCallback callback) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(instance.base().resolve(path))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", callback.contentType())
                .POST(HttpRequest.BodyPublishers.ofByteArray(callback.body()));
        callback.headers().forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (ConnectException e) {
            return REFUSED;
        } catch (HttpTimeoutException e) {
            return UNANSWERED;
        } catch (IOException e) {
            return e.getCause() instanceof ConnectException ? REFUSED : UNANSWERED;
        }
    }

    Set<String> acknowledged() {
        return Set.copyOf(acknowledged);
    }

    Set<String> sent() {
        return Set.copyOf(sent);
    }

    /** Answers by status, with {@link #REFUSED} and {@link #UNANSWERED} for the requests that got none. */
    Map<Integer, Integer> answers() {
        Map<Integer, Integer> counts = new TreeMap<>();
        answers.forEach((status, count) -> counts.put(status, count.get()));
        return counts;
    }

    void close() {
        senders.shutdownNow();
    }
}
