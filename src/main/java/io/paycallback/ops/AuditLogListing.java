package io.paycallback.ops;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;

/** The operator's listing of the {@link AuditLog}: the operator actions that changed state, newest first. */
@ApplicationScoped
public class AuditLogListing {

    private final AuditLog audit;

    public AuditLogListing(AuditLog audit) {
        this.audit = audit;
    }

    /** {@code beforeId} pages back. */
    @OperatorAction.Performs(OperatorAction.AUDIT_LIST)
    public Uni<ActionResult<List<AuditEntry>>> list(long beforeId, int limit) {
        Optional<String> badLimit = Limits.check(limit);
        if (badLimit.isPresent()) {
            return Uni.createFrom().item(ActionResult.refused(badLimit.get()));
        }
        return audit.list(beforeId, limit).map(entries -> ActionResult.done(entries, entries.size() + " entries"));
    }
}
