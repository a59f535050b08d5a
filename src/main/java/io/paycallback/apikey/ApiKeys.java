package io.paycallback.apikey;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.auth.ApiKeyToken;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The order service's API keys made as data, served from memory: a request's key is looked up in a map and its
 * secret's SHA-256 compared in constant time, with no SQL. Every {@code paycallback.api-keys.poll-interval} each
 * instance asks how many keys were made and revoked; when either count moved it reads the live keys again, so a
 * revocation holds on every instance within a poll. The instance that makes a change reads them before it answers.
 * A key's last use is written at most once a minute per instance, by the poll, never by the request.
 */
@Startup
@ApplicationScoped
public class ApiKeys {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);
    /** 32 random bytes: a fast hash is the right one for a secret this long (nothing to guess from a dictionary). */
    static final int SECRET_BYTES = 32;
    static final Duration LAST_USED_RESOLUTION = Duration.ofMinutes(1);
    private static final char[] ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    /** A key that opened a request: who it is and which merchants it reaches. */
    public record Caller(String id, String prefix, String name, Set<String> merchants) {
    }

    /**
     * A key just made.
     *
     * @param token the whole key, shown this once and never stored
     */
    public record Made(ApiKey key, String token, long auditEntry) {
    }

    private record Entry(byte[] digest, Caller caller) {
    }

    private final ApiKeyStore store;
    private final Pool pool;
    private final Clock clock;
    private final Vertx vertx;
    private final SecureRandom random = new SecureRandom();
    private final Counter failures;
    private final AtomicBoolean polling = new AtomicBoolean();
    private final Map<String, Instant> touched = new ConcurrentHashMap<>();
    private final Set<String> toWrite = ConcurrentHashMap.newKeySet();
    private final long timer;
    private volatile ApiKeyStore.State state = new ApiKeyStore.State(-1, -1);
    private volatile Map<String, Entry> live = Map.of();

    public ApiKeys(ApiKeysConfig config, ApiKeyStore store, Pool pool, Clock clock, Vertx vertx, MeterRegistry meters) {
        this.store = store;
        this.pool = pool;
        this.clock = clock;
        this.vertx = vertx;
        this.failures = Counter.builder("paycallback.api.keys.reload.failures")
                .description("Reads of the API keys that failed; the keys read before are served").register(meters);
        this.timer = vertx.setPeriodic(Math.max(50, config.pollInterval().toMillis()), id -> poll());
        poll();
    }

    @PreDestroy
    void stop() {
        vertx.cancelTimer(timer);
    }

    /** The key {@code token} is, when it is a live key and its secret matches. */
    public Optional<Caller> identify(String token) {
        Optional<ApiKeyToken> parsed = ApiKeyToken.parse(token);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        Entry entry = live.get(parsed.get().id());
        if (entry == null || !MessageDigest.isEqual(entry.digest(), digest(parsed.get().secret()))) {
            return Optional.empty();
        }
        used(entry.caller().id());
        return Optional.of(entry.caller());
    }

    /** Marks a key for the next poll to write its last use, unless this instance wrote it within the last minute. */
    private void used(String id) {
        Instant now = clock.instant();
        Instant before = touched.get(id);
        if (before == null || !now.isBefore(before.plus(LAST_USED_RESOLUTION))) {
            touched.put(id, now);
            toWrite.add(id);
        }
    }

    public Uni<List<ApiKey>> list() {
        return store.list();
    }

    /**
     * Makes the key {@code id} (from {@link #newId}) for {@code merchants} with {@code audit}'s entry in the same
     * transaction, and serves it here before this answers.
     */
    public Uni<Made> create(String id, String name, List<String> merchants, String actor,
                            Function<SqlClient, Uni<Long>> audit) {
        byte[] secret = new byte[SECRET_BYTES];
        random.nextBytes(secret);
        ApiKeyToken token = new ApiKeyToken(id, Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
        return pool.withTransaction(tx -> store.insert(tx, id, name, digest(token.secret()), merchants, actor)
                        .flatMap(nothing -> audit.apply(tx)))
                .flatMap(entry -> reload().replaceWith(entry))
                .map(entry -> new Made(new ApiKey(id, ApiKeyToken.prefix(id), name, List.copyOf(merchants), actor,
                        null, null, null, null), token.token(), entry));
    }

    /**
     * Revokes a key with {@code audit}'s entry in the same transaction; this instance refuses it before this answers,
     * every other within a poll.
     *
     * @return the audit entry, or empty when no live key has that id
     */
    public Uni<Optional<Long>> revoke(String id, String actor, Function<SqlClient, Uni<Long>> audit) {
        return pool.withTransaction(tx -> store.revoke(tx, id, actor).flatMap(revoked -> revoked
                        ? audit.apply(tx).map(Optional::of) : Uni.createFrom().item(Optional.<Long>empty())))
                .flatMap(entry -> reload().replaceWith(entry));
    }

    private void poll() {
        if (!polling.compareAndSet(false, true)) {
            return;
        }
        List<String> ids = new ArrayList<>(toWrite);
        toWrite.removeAll(ids);
        Uni<Void> written = ids.isEmpty() ? Uni.createFrom().voidItem() : store.touch(ids)
                .onFailure().invoke(failure -> LOG.debugf("last use of API keys %s not written: %s", ids, failure.getMessage()))
                .onFailure().recoverWithNull().replaceWithVoid();
        written.flatMap(nothing -> store.state())
                .flatMap(seen -> seen.equals(state) ? Uni.createFrom().voidItem() : load(seen))
                .subscribe().with(ok -> polling.set(false), failure -> {
                    polling.set(false);
                    failures.increment();
                    LOG.warnf("The API keys could not be read (%s); serving those read before", failure.getMessage());
                });
    }

    private Uni<Void> reload() {
        return store.state().flatMap(this::load);
    }

    private Uni<Void> load(ApiKeyStore.State seen) {
        return store.live().invoke(keys -> serve(seen, keys)).replaceWithVoid();
    }

    /**
     * Both counts only grow, so a read that saw fewer keys made or revoked than the one served (a poll overtaken by the
     * reload of a change) is dropped: a revoked key never comes back, even for a poll.
     */
    private synchronized void serve(ApiKeyStore.State seen, List<ApiKeyStore.Live> keys) {
        if (seen.made() < state.made() || seen.revoked() < state.revoked()) {
            return;
        }
        Map<String, Entry> byId = new HashMap<>();
        keys.forEach(key -> byId.put(key.id(), new Entry(key.digest(), new Caller(key.id(), ApiKeyToken.prefix(key.id()),
                key.name(), Set.copyOf(key.merchants())))));
        live = Map.copyOf(byId);
        state = seen;
    }

    /** A fresh key id, random: the caller names its audit target with it before the key is made. */
    public String newId() {
        char[] id = new char[ApiKeyToken.ID_LENGTH];
        for (int i = 0; i < id.length; i++) {
            id[i] = ID_ALPHABET[random.nextInt(ID_ALPHABET.length)];
        }
        return new String(id);
    }

    static byte[] digest(String secret) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
