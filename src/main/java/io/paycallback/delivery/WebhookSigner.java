package io.paycallback.delivery;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * Signs one destination's events the Standard Webhooks way (spec v1.0.0): {@code webhook-id}, the same on every try,
 * requeue and replay of the event, since it is derived from its Idempotency-Key; {@code webhook-timestamp}, this try's
 * Unix seconds; {@code webhook-signature}, {@code v1,<base64 HMAC-SHA256 of "id.timestamp.body">} with the
 * destination's secret, followed (space-separated) by the signature with its previous secret until that expires, so a
 * receiver verifies with whichever it holds while the secret rotates.
 */
public final class WebhookSigner {

    public static final String ID = "webhook-id";
    public static final String TIMESTAMP = "webhook-timestamp";
    public static final String SIGNATURE = "webhook-signature";

    private final SigningSecret current;
    private final Optional<SigningSecret> previous;
    private final Instant previousExpires;

    WebhookSigner(SigningSecret current, Optional<SigningSecret> previous, Instant previousExpires) {
        this.current = current;
        this.previous = previous;
        this.previousExpires = previousExpires;
    }

    /** The three headers of one try. */
    public record Headers(String id, long timestamp, String signature) {
    }

    /**
     * @param body exactly the bytes sent
     * @param now  the try's time
     */
    public Headers sign(String idempotencyKey, byte[] body, Instant now) {
        String id = webhookId(idempotencyKey);
        long timestamp = now.getEpochSecond();
        String signature = current.sign(id, timestamp, body);
        if (previous.isPresent() && now.isBefore(previousExpires)) {
            signature = signature + " " + previous.get().sign(id, timestamp, body);
        }
        return new Headers(id, timestamp, signature);
    }

    /** Until when the previous secret signs too; empty when there is none or it has expired. */
    public Optional<Instant> previousUntil(Instant now) {
        return previous.isPresent() && now.isBefore(previousExpires) ? Optional.of(previousExpires) : Optional.empty();
    }

    /**
     * {@code msg_} + the unpadded base64url of the SHA-256 of the Idempotency-Key: stable for the event and destination
     * whatever happens to its row, and free of the {@code .} that would make "id.timestamp.body" ambiguous.
     */
    public static String webhookId(String idempotencyKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(idempotencyKey.getBytes(StandardCharsets.UTF_8));
            return "msg_" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
