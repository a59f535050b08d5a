package io.paycallback.outbox;

/** What the relay needs of an outbox row to deliver it. */
public record PendingEvent(long id, String source, String type, String destination, String payload) {

    public String idempotencyKey() {
        return Outbox.idempotencyKey(source, type, destination);
    }
}
