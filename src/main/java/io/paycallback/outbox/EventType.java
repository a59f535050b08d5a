package io.paycallback.outbox;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The downstream event types of the interface contract, with their names on the wire. */
public enum EventType {
    ORDER_PAID("order.paid"),
    REFUND_REQUESTED("refund.requested"),
    REFUND_SUBMITTED("refund.submitted"),
    REFUND_SUCCEEDED("refund.succeeded"),
    REFUND_FAILED("refund.failed"),
    ALERT("alert");

    private final String wire;

    EventType(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Optional<EventType> fromWire(String name) {
        return Arrays.stream(values()).filter(type -> type.wire.equals(name)).findFirst();
    }

    public static String known() {
        return Arrays.stream(values()).map(EventType::wire).collect(Collectors.joining(", "));
    }
}
