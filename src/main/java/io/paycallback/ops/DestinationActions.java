package io.paycallback.ops;

import io.paycallback.delivery.DeliveryResult;
import io.paycallback.delivery.DestinationControls;
import io.paycallback.delivery.DestinationResults;
import io.paycallback.delivery.DestinationView;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The destinations of downstream events for an operator: their state and backlog, disable and enable, a probe sent
 * now, and a replay since a time, counted first by a dry run whose plan the replay then carries out exactly. Every
 * change is audited under the operator's name in the transaction that makes it.
 */
@ApplicationScoped
public class DestinationActions {

    /** A probe an operator sent: delivered (its circuit closed) or not, and the try's answer. */
    @RegisterForReflection
    public record Probed(DestinationView destination, boolean delivered, DeliveryResult result, Integer httpStatus,
                         String error, long latencyMs, long auditEntry) {
    }

    /**
     * A replay carried out.
     *
     * @param auditEntry null when nothing matched the plan any more, so nothing was done or audited
     */
    @RegisterForReflection
    public record Replayed(DestinationResults.ReplayPlan plan, long resent, long added, int batches, Long auditEntry) {
    }

    private final DestinationControls operations;
    private final AuditLog audit;

    public DestinationActions(DestinationControls operations, AuditLog audit) {
        this.operations = operations;
        this.audit = audit;
    }

    /** Every configured destination. */
    @OperatorAction.Performs(OperatorAction.DESTINATION_LIST)
    public Uni<ActionResult<List<DestinationView>>> list() {
        return operations.list().map(views -> ActionResult.done(views, views.size() + " destinations"));
    }

    @OperatorAction.Performs(OperatorAction.DESTINATION_INSPECT)
    public Uni<ActionResult<DestinationView>> get(String name) {
        return operations.get(name).map(view -> view.isPresent() ? ActionResult.done(view.get(), name)
                : ActionResult.notFound(unknown(name)));
    }

    @OperatorAction.Performs(OperatorAction.DESTINATION_DISABLE)
    public Uni<ActionResult<DestinationView>> disable(String name, String actor) {
        AuditLog.Entry entry = audit.entry(actor, AuditAction.DESTINATION_DISABLE, target(name));
        return operations.disable(name, entry).map(change -> changed(change, "disabled", entry));
    }

    @OperatorAction.Performs(OperatorAction.DESTINATION_ENABLE)
    public Uni<ActionResult<DestinationView>> enable(String name, String actor) {
        AuditLog.Entry entry = audit.entry(actor, AuditAction.DESTINATION_ENABLE, target(name));
        return operations.enable(name, entry).map(change -> changed(change, "enabled", entry));
    }

    private static ActionResult<DestinationView> changed(DestinationResults.Change change, String state,
                                                         AuditLog.Entry entry) {
        if (change instanceof DestinationResults.Change.Changed changed) {
            entry.logged();
            return ActionResult.done(changed.destination(), changed.destination().name() + " " + state + " (audit #"
                    + changed.auditEntry() + ")");
        }
        if (change instanceof DestinationResults.Change.Unchanged unchanged) {
            return ActionResult.done(unchanged.destination(), unchanged.destination().name() + " was " + state
                    + " already; nothing changed");
        }
        return ActionResult.notFound(unknown(((DestinationResults.Change.Unknown) change).destination()));
    }

    /** Sends the oldest waiting event of an open or disabled destination now. */
    @OperatorAction.Performs(OperatorAction.DESTINATION_PROBE)
    public Uni<ActionResult<Probed>> probe(String name, String actor) {
        AuditLog.Entry entry = audit.entry(actor, AuditAction.DESTINATION_PROBE, target(name));
        return operations.probeNow(name, entry).map(probe -> {
            if (probe instanceof DestinationResults.Probe.Delivered delivered) {
                entry.logged();
                return ActionResult.done(new Probed(delivered.destination(), true, DeliveryResult.DELIVERED,
                        delivered.httpStatus(), null, delivered.latencyMs(), delivered.auditEntry()),
                        name + " took the probe (" + (delivered.httpStatus() == null ? "acknowledged"
                                : "HTTP " + delivered.httpStatus()) + " in " + delivered.latencyMs()
                                + " ms): its circuit is closed and its waiting events are due");
            }
            if (probe instanceof DestinationResults.Probe.Failed failed) {
                entry.logged();
                return ActionResult.done(new Probed(failed.destination(), false, failed.result(), failed.httpStatus(),
                        failed.error(), failed.latencyMs(), failed.auditEntry()), name + " did not take the probe ("
                        + (failed.httpStatus() == null ? failed.error() : "HTTP " + failed.httpStatus())
                        + "); its events keep waiting, no try spent");
            }
            if (probe instanceof DestinationResults.Probe.NotNeeded notNeeded) {
                return ActionResult.<Probed>conflict(name + " is " + notNeeded.destination().state().label()
                        + ": its events are delivered as they come, there is nothing to probe");
            }
            if (probe instanceof DestinationResults.Probe.NothingToSend) {
                return ActionResult.<Probed>conflict("no event of " + name
                        + " waits to be sent (or another instance is probing it right now)");
            }
            return ActionResult.<Probed>notFound(unknown(name));
        });
    }

    /**
     * The dry run of a replay since {@code since} (the database's clock, ISO like 2026-01-31T23:00). With the
     * {@code upToId} of an earlier dry run it counts that dry run's events again, as the replay would.
     */
    @OperatorAction.Performs(OperatorAction.DESTINATION_REPLAY_DRY_RUN)
    public Uni<ActionResult<DestinationResults.ReplayPlan>> previewReplay(String name, String since, Long upToId) {
        LocalDateTime from;
        try {
            from = since(since);
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(ActionResult.refused(e.getMessage()));
        }
        if (upToId != null && upToId < 0) {
            return Uni.createFrom().item(ActionResult.refused("upToId is the lastId of a dry run, never negative"));
        }
        return (upToId == null ? operations.previewReplay(name, from) : operations.previewReplay(name, from, upToId))
                .map(preview -> {
                    if (preview instanceof DestinationResults.ReplayPreview.Planned planned) {
                        DestinationResults.ReplayPlan plan = planned.plan();
                        return ActionResult.done(plan, plan.resent() + " events of " + name + " to send again and "
                                + plan.added() + " to add, up to event #" + plan.upToId());
                    }
                    return ActionResult.notFound(unknown(name));
                });
    }

    /** Carries out the dry run that answered {@code upToId} for the same destination and time. */
    @OperatorAction.Performs(OperatorAction.DESTINATION_REPLAY_APPLY)
    public Uni<ActionResult<Replayed>> replay(String name, String since, long upToId, String actor) {
        LocalDateTime from;
        try {
            from = since(since);
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(ActionResult.refused(e.getMessage()));
        }
        return operations.previewReplay(name, from, upToId).flatMap(preview -> {
            if (!(preview instanceof DestinationResults.ReplayPreview.Planned planned)) {
                return Uni.createFrom().item(ActionResult.<Replayed>notFound(unknown(name)));
            }
            AuditLog.Entry entry = audit.entry(actor, AuditAction.DESTINATION_REPLAY,
                    target(name) + " since=" + from + " upToId=" + upToId);
            return operations.replay(planned.plan(), entry).map(replay -> {
                if (replay instanceof DestinationResults.Replay.Replayed replayed) {
                    entry.logged();
                    return ActionResult.done(new Replayed(replayed.plan(), replayed.resent(), replayed.added(),
                            replayed.batches(), replayed.auditEntry()), replayed.resent() + " events of " + name
                            + " pending again and " + replayed.added() + " added, due now (audit #"
                            + replayed.auditEntry() + ")");
                }
                if (replay instanceof DestinationResults.Replay.NothingToReplay nothing) {
                    return ActionResult.done(new Replayed(nothing.plan(), 0, 0, 0, null),
                            "nothing matched the dry run any more; nothing changed");
                }
                return ActionResult.<Replayed>notFound(unknown(name));
            });
        });
    }

    private static LocalDateTime since(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("since is required: the time to replay from, like 2026-01-31T23:00");
        }
        try {
            return LocalDateTime.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("since is a date and time like 2026-01-31T23:00");
        }
    }

    private static String unknown(String name) {
        return "no destination " + name + " is configured";
    }

    private static String target(String name) {
        return "destination=" + name;
    }
}
