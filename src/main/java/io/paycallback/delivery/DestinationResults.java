package io.paycallback.delivery;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.LocalDateTime;

/** What the operator actions of {@link DestinationControls} answer: one sealed type per action, no exceptions. */
public final class DestinationResults {

    private DestinationResults() {
    }

    /** A disable or an enable. */
    public sealed interface Change {

        /** The state changed; {@code auditEntry} is the audit log's entry of it. */
        @RegisterForReflection
        record Changed(DestinationView destination, long auditEntry) implements Change {
        }

        /** It already was in that state: nothing changed and nothing was audited. */
        @RegisterForReflection
        record Unchanged(DestinationView destination) implements Change {
        }

        @RegisterForReflection
        record Unknown(String destination) implements Change {
        }
    }

    /** A probe an operator asked for. */
    public sealed interface Probe {

        /** The oldest waiting event was delivered: the circuit is closed and the waiting events are due. */
        @RegisterForReflection
        record Delivered(DestinationView destination, Integer httpStatus, long latencyMs, long auditEntry)
                implements Probe {
        }

        /** It was not delivered: nothing changed but the probe's attempt, kept with its event. */
        @RegisterForReflection
        record Failed(DestinationView destination, DeliveryResult result, Integer httpStatus, String error, long latencyMs,
                      long auditEntry) implements Probe {
        }

        /** Its circuit is closed: its events are being delivered as they come. */
        @RegisterForReflection
        record NotNeeded(DestinationView destination) implements Probe {
        }

        /** No event waits to be sent as the probe (or another instance is probing it right now). */
        @RegisterForReflection
        record NothingToSend(DestinationView destination) implements Probe {
        }

        @RegisterForReflection
        record Unknown(String destination) implements Probe {
        }
    }

    /**
     * What a replay would do, counted by the dry run: the plan the replay then carries out exactly (rows written after
     * the dry run are never swept in).
     *
     * @param upToId   the last outbox id at the dry run
     * @param resent   its delivered or dead events since the time, to be sent again
     * @param added    events of its types since the time that it has no row for (written before it subscribed)
     */
    @RegisterForReflection
    public record ReplayPlan(String destination, LocalDateTime since, long upToId, long resent, long added) {
    }

    public sealed interface ReplayPreview {

        @RegisterForReflection
        record Planned(ReplayPlan plan) implements ReplayPreview {
        }

        @RegisterForReflection
        record Unknown(String destination) implements ReplayPreview {
        }
    }

    public sealed interface Replay {

        /** The events are pending again (or written), due at once; {@code batches} transactions under one entry. */
        @RegisterForReflection
        record Replayed(ReplayPlan plan, long resent, long added, int batches, long auditEntry) implements Replay {
        }

        /** Nothing matched the plan any more. */
        @RegisterForReflection
        record NothingToReplay(ReplayPlan plan) implements Replay {
        }

        @RegisterForReflection
        record Unknown(String destination) implements Replay {
        }
    }
}
