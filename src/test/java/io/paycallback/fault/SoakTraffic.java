package io.paycallback.fault;

import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.SignedCallback;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * The soak's steady traffic, as the order service and two providers make it: orders registered through the order API at
 * a fixed rate, each paid by a signed WeChat Pay or Stripe callback to either instance, which pushes again until it is
 * answered 200 (as the providers do); some callbacks repeated to the other instance, some orders refunded by a WeChat
 * Pay refund notice, some read back through the order API and some closed unpaid. Orders are {@code FS-<n>}, so
 * {@link ScenarioRows} reads them as scenario {@code S}. Every callback's latency is kept with the instant it was sent.
 */
final class SoakTraffic implements AutoCloseable {

    static final String SCENARIO = "S";
    /** What each refund notice gives back, of an order of 1.00. */
    static final long REFUND_FEN = 30;
    private static final Duration PUSH_AGAIN = Duration.ofSeconds(2);

    enum Channel {
        WXPAY("CNY"), STRIPE("USD");

        final String currency;

        Channel(String currency) {
            this.currency = currency;
        }
    }

    /** One callback as sent: when, how long until its answer, and the answer (or {@link Load#REFUSED}, {@link Load#UNANSWERED}). */
    record Sent(long atMillis, long micros, int status) {
    }

    /** A payment acknowledged, kept to be pushed again in a burst of duplicates. */
    private record Acknowledged(String path, SignedCallback callback) {
    }

    private final ProviderSigner signer;
    private final String token;
    private final List<ServiceInstance> instances;
    private final Set<ServiceInstance> unroutable = ConcurrentHashMap.newKeySet();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
            .executor(Executors.newFixedThreadPool(8)).build();
    private final ThreadPoolExecutor orders = new ThreadPoolExecutor(64, 64, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicReference<Thread> pacer = new AtomicReference<>();
    private volatile Instant giveUpAt = Instant.MAX;

    private final ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
    private final Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
    private final Map<String, String> paidTrades = new ConcurrentHashMap<>();
    private final Set<String> refunded = ConcurrentHashMap.newKeySet();
    private final Set<String> closed = ConcurrentHashMap.newKeySet();
    private final Set<String> registered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger queries = new AtomicInteger();
    private final AtomicInteger failedQueries = new AtomicInteger();
    private final List<Acknowledged> recent = new CopyOnWriteArrayList<>();
    private final AtomicInteger pushedAgain = new AtomicInteger();

    SoakTraffic(ProviderSigner signer, String token, List<ServiceInstance> instances) {
        this.signer = signer;
        this.token = token;
        this.instances = List.copyOf(instances);
    }

    /** Keeps new requests away from an instance, as a load balancer does from a pod it knows is going. */
    void unroutable(ServiceInstance instance, boolean away) {
        if (away) {
            unroutable.add(instance);
        } else {
            unroutable.remove(instance);
        }
    }

    /**
     * Orders paid per second with {@code workers} of them registered and paid back to back, none waiting for another:
     * the machine's capacity for this traffic (the callback and the registration before it), measured over
     * {@code measured} after {@code warmUp}.
     */
    double capacity(int workers, Duration warmUp, Duration measured) throws InterruptedException {
        ExecutorService loop = Executors.newFixedThreadPool(workers);
        Instant start = Instant.now();
        Instant measuring = start.plus(warmUp);
        Instant end = measuring.plus(measured);
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < workers; i++) {
            loop.submit(() -> {
                while (Instant.now().isBefore(end)) {
                    int n = next.getAndIncrement();
                    registerAndPay(n);
                    if (Instant.now().isAfter(measuring) && Instant.now().isBefore(end)) {
                        done.incrementAndGet();
                    }
                }
                return null;
            });
        }
        loop.shutdown();
        loop.awaitTermination(warmUp.plus(measured).toSeconds() + 120, TimeUnit.SECONDS);
        return done.get() / (double) measured.toSeconds();
    }

    /** New orders at {@code perSecond} from now until {@link #stop}; each is worked off on a pool of its own. */
    void start(double perSecond) {
        Thread thread = new Thread(() -> {
            long interval = (long) (1_000_000_000L / perSecond);
            long due = System.nanoTime();
            while (!Thread.currentThread().isInterrupted()) {
                int n = next.getAndIncrement();
                orders.execute(() -> order(n));
                due += interval;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }, "soak-pacer");
        pacer.set(thread);
        thread.start();
    }

    /** No new orders; those begun push until answered, or until {@code giveUp} has passed. */
    void stop(Duration giveUp) throws InterruptedException {
        giveUpAt = Instant.now().plus(giveUp);
        Thread thread = pacer.getAndSet(null);
        thread.interrupt();
        thread.join();
        orders.shutdown();
        if (!orders.awaitTermination(giveUp.toSeconds() + 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the soak's orders did not end within " + giveUp + " of the traffic stopping");
        }
    }

    /** Orders waiting for a worker of the pool: what a fault held back and the traffic has still to catch up on. */
    int backlog() {
        return orders.getQueue().size();
    }

    private void order(int n) {
        if (n % 50 == 49) {
            registerAndClose(n);
            return;
        }
        String outTradeNo = registerAndPay(n);
        if (outTradeNo == null) {
            return;
        }
        if (n % 5 == 0) {
            pushedAgain.incrementAndGet();
            post(pick(), payment(n), "/pay/callback/" + channel(n).name().toLowerCase());
        }
        if (n % 10 == 3) {
            read(outTradeNo);
        }
        if (channel(n) == Channel.WXPAY && n % 10 == 2) {
            String refundNo = "RS-" + n;
            String trade = tradeNo(n);
            if (untilAnswered(() -> signer.wxRefund(outTradeNo, trade, refundNo, "W" + refundNo, 100, REFUND_FEN, "SUCCESS",
                    Instant.now()), "/refund/callback/wxpay")) {
                refunded.add(outTradeNo);
            }
        }
    }

    /** The order registered and its payment pushed until answered 200; its number, or null if that never came. */
    private String registerAndPay(int n) {
        String outTradeNo = "F" + SCENARIO + "-" + n;
        Channel channel = channel(n);
        if (!register(outTradeNo, channel)) {
            return null;
        }
        String path = "/pay/callback/" + channel.name().toLowerCase();
        SignedCallback[] last = new SignedCallback[1];
        boolean paid = untilAnswered(() -> last[0] = payment(n), path);
        if (!paid) {
            return null;
        }
        paidTrades.put(tradeNo(n), outTradeNo);
        if (recent.size() < 2_000) {
            recent.add(new Acknowledged(path, last[0]));
        } else {
            recent.set(ThreadLocalRandom.current().nextInt(recent.size()), new Acknowledged(path, last[0]));
        }
        return outTradeNo;
    }

    private void registerAndClose(int n) {
        String outTradeNo = "F" + SCENARIO + "-" + n;
        if (!register(outTradeNo, channel(n))) {
            return;
        }
        while (Instant.now().isBefore(giveUpAt)) {
            int status = orderApi("/internal/orders/" + outTradeNo + "/close", true);
            // 409: no longer PENDING, so an earlier try closed it though its answer was lost (nothing pays these orders).
            if (status == 200 || status == 409) {
                closed.add(outTradeNo);
                return;
            }
            pause();
        }
    }

    private boolean register(String outTradeNo, Channel channel) {
        while (Instant.now().isBefore(giveUpAt)) {
            int status = send(pick(), "/internal/orders", HttpRequest.BodyPublishers.ofString("{\"outTradeNo\":\"" + outTradeNo
                    + "\",\"amount\":\"1.00\",\"currency\":\"" + channel.currency + "\"}"), "application/json", Map.of(
                    "Authorization", "Bearer " + token));
            // 409: an earlier try was stored though its answer was lost.
            if (status == 201 || status == 409) {
                registered.add(outTradeNo);
                return true;
            }
            pause();
        }
        return false;
    }

    private void read(String outTradeNo) {
        queries.incrementAndGet();
        if (orderApi("/internal/orders/" + outTradeNo, false) != 200) {
            failedQueries.incrementAndGet();
        }
    }

    private int orderApi(String path, boolean post) {
        HttpRequest.Builder request = HttpRequest.newBuilder(pick().base().resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token);
        request = post ? request.POST(HttpRequest.BodyPublishers.noBody()) : request.GET();
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return Load.UNANSWERED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Load.UNANSWERED;
        }
    }

    private interface Signing {
        SignedCallback sign();
    }

    /** Pushed again (signed anew, as a provider's retry is) every {@link #PUSH_AGAIN} until answered 200. */
    private boolean untilAnswered(Signing signing, String path) {
        while (Instant.now().isBefore(giveUpAt)) {
            if (post(pick(), signing.sign(), path) == 200) {
                return true;
            }
            pause();
        }
        return false;
    }

    private int post(ServiceInstance instance, SignedCallback callback, String path) {
        long at = System.currentTimeMillis();
        long started = System.nanoTime();
        int status = send(instance, path, HttpRequest.BodyPublishers.ofByteArray(callback.body()), callback.contentType(),
                callback.headers());
        sent.add(new Sent(at, (System.nanoTime() - started) / 1_000, status));
        answers.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
        return status;
    }

    private int send(ServiceInstance instance, String path, HttpRequest.BodyPublisher body, String contentType,
                     Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(instance.base().resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", contentType).POST(body);
        headers.forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (ConnectException e) {
            return Load.REFUSED;
        } catch (HttpTimeoutException e) {
            return Load.UNANSWERED;
        } catch (IOException e) {
            return e.getCause() instanceof ConnectException ? Load.REFUSED : Load.UNANSWERED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Load.UNANSWERED;
        }
    }

    /**
     * Every acknowledged payment of a sample of up to {@code callbacks} pushed again {@code copies} times at once, half
     * to each instance, as a provider's retry storm; its answers by status.
     */
    Map<Integer, Integer> duplicates(int callbacks, int copies) throws InterruptedException {
        List<Acknowledged> sample = new ArrayList<>(recent);
        Collections.shuffle(sample);
        List<Acknowledged> chosen = sample.subList(0, Math.min(callbacks, sample.size()));
        Map<Integer, AtomicInteger> burst = new ConcurrentHashMap<>();
        ExecutorService storm = Executors.newFixedThreadPool(32);
        for (Acknowledged callback : chosen) {
            for (int copy = 0; copy < copies; copy++) {
                ServiceInstance target = instances.get(copy % instances.size());
                storm.submit(() -> burst.computeIfAbsent(post(target, callback.callback(), callback.path()),
                        s -> new AtomicInteger()).incrementAndGet());
            }
        }
        storm.shutdown();
        if (!storm.awaitTermination(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the burst of duplicates did not end within 5 minutes");
        }
        Map<Integer, Integer> counts = new TreeMap<>();
        burst.forEach((status, count) -> counts.put(status, count.get()));
        return counts;
    }

    private SignedCallback payment(int n) {
        String outTradeNo = "F" + SCENARIO + "-" + n;
        return channel(n) == Channel.WXPAY
                ? signer.wxPayment(outTradeNo, tradeNo(n), 100, "SUCCESS", Instant.now())
                : signer.stripePayment(outTradeNo, tradeNo(n), 100, "usd", Instant.now());
    }

    private static Channel channel(int n) {
        return n % 2 == 0 ? Channel.WXPAY : Channel.STRIPE;
    }

    private static String tradeNo(int n) {
        return "TS" + n;
    }

    private ServiceInstance pick() {
        List<ServiceInstance> routable = instances.stream().filter(Predicate.not(unroutable::contains)).toList();
        List<ServiceInstance> from = routable.isEmpty() ? instances : routable;
        return from.get(ThreadLocalRandom.current().nextInt(from.size()));
    }

    private void pause() {
        try {
            Thread.sleep(PUSH_AGAIN.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The callbacks sent in {@code [from, to)} (epoch millis) that {@code counted} keeps, their p99 in ms (NaN if none). */
    double p99(long from, long to, Predicate<Sent> counted) {
        long[] micros = sent.stream().filter(s -> s.atMillis() >= from && s.atMillis() < to && s.status() > 0)
                .filter(counted).mapToLong(Sent::micros).sorted().toArray();
        return micros.length == 0 ? Double.NaN : micros[(int) Math.ceil(micros.length * 0.99) - 1] / 1000.0;
    }

    long count(long from, long to, Predicate<Sent> counted) {
        return sent.stream().filter(s -> s.atMillis() >= from && s.atMillis() < to && s.status() > 0).filter(counted).count();
    }

    /** Trade number to order of every payment answered 200. */
    Map<String, String> paidTrades() {
        return Map.copyOf(paidTrades);
    }

    Set<String> refunded() {
        return Set.copyOf(refunded);
    }

    Set<String> closed() {
        return Set.copyOf(closed);
    }

    Set<String> registered() {
        return Set.copyOf(registered);
    }

    /** Callbacks by answer, with {@link Load#REFUSED} and {@link Load#UNANSWERED} for those that got none. */
    Map<Integer, Integer> answers() {
        Map<Integer, Integer> counts = new TreeMap<>();
        answers.forEach((status, count) -> counts.put(status, count.get()));
        return counts;
    }

    String figures() {
        return "orders=" + next.get() + ", registered=" + registered.size() + ", paid=" + paidTrades.size() + ", repeats="
                + pushedAgain.get() + ", refunded=" + refunded.size() + ", closed=" + closed.size() + ", order reads="
                + queries.get() + " (not 200: " + failedQueries.get() + "), callbacks by answer=" + answers();
    }

    @Override
    public void close() {
        Thread thread = pacer.getAndSet(null);
        if (thread != null) {
            thread.interrupt();
        }
        orders.shutdownNow();
    }
}
