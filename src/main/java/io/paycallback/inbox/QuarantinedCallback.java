package io.paycallback.inbox;

import java.time.LocalDateTime;

/** A quarantined callback without its body: the hash tells copies apart, the length tells what arrived. */
public record QuarantinedCallback(long id, String merchantId, String channel, String kind, String reason,
                                  String bodySha256, int bodyLength, LocalDateTime createdAt) {
}
