package io.paycallback.ops;

import java.time.LocalDateTime;

/** One audited operator action; {@code actor} is the name of the token used, never the token. */
public record AuditEntry(long id, LocalDateTime at, String actor, AuditAction action, String target, long rows) {
}
