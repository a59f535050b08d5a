-- Every state-changing operator action (replay, requeue, bulk requeue): who by token name (never the token), what,
-- on which rows, how many, when. row_count of a bulk requeue grows batch by batch in the batches' own transactions,
-- so an interrupted run still says exactly how many rows it moved.
CREATE TABLE audit_log (
    id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    actor      VARCHAR(64)     NOT NULL,
    action     VARCHAR(32)     NOT NULL,
    target     VARCHAR(512)    NOT NULL,
    row_count  BIGINT          NOT NULL,
    created_at DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    KEY idx_audit_log_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
