package io.paycallback.health;

import java.util.Map;
import java.util.Optional;

/**
 * What a Galera node says of itself in {@code SHOW STATUS}: whether it takes queries ({@code wsrep_ready}) and where it
 * is in its state machine ({@code wsrep_local_state}: 1 joining, 2 donor or desynced, 3 joined, 4 synced). Only a
 * Synced, ready node serves reads that are current and writes that will not stall behind a state transfer; a donor or a
 * desynced node still accepts the connection and the reactive pool's own check, which is why this one exists.
 */
record GaleraState(boolean ready, int localState, String comment) {

    static final int SYNCED = 4;

    /** @return empty when the server reports no wsrep status at all: not a Galera node */
    static Optional<GaleraState> of(Map<String, String> status) {
        String state = status.get("wsrep_local_state");
        if (state == null) {
            return Optional.empty();
        }
        int localState;
        try {
            localState = Integer.parseInt(state.trim());
        } catch (NumberFormatException e) {
            localState = -1;
        }
        return Optional.of(new GaleraState("ON".equalsIgnoreCase(status.getOrDefault("wsrep_ready", "OFF")), localState,
                status.getOrDefault("wsrep_local_state_comment", "")));
    }

    boolean synced() {
        return ready && localState == SYNCED;
    }
}
