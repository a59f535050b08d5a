-- Each downstream destination's circuit, shared by every instance (delivery/DestinationCircuits). state: 0 closed,
-- 1 open, 3 disabled; an open circuit whose probe_until lies ahead is half-open (a probe is under way). since: when it
-- entered its state. next_probe_at: when an open circuit is probed next. reason: why it is open or disabled. A row per
-- configured destination is created at start-up; a release that does not know the table never touches it.
CREATE TABLE destination_circuits (
    destination   VARCHAR(64)  NOT NULL,
    state         TINYINT      NOT NULL DEFAULT 0,
    since         DATETIME(3)  NOT NULL,
    next_probe_at DATETIME(3)  NULL,
    probe_until   DATETIME(3)  NULL,
    reason        VARCHAR(512) NULL,
    updated_at    DATETIME(3)  NOT NULL,
    PRIMARY KEY (destination)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A destination's pending events as one range: parking them while its circuit is open (lease_token = 'parked', due
-- an hour ahead and pushed on, so no scan leases them), releasing them when it closes, its probe (the oldest parked), its
-- backlog and replays, none of which walks another destination's rows. Expand-only: every statement of the previous
-- release works unchanged.
ALTER TABLE outbox ADD KEY idx_outbox_destination (destination, status, next_retry_at);
