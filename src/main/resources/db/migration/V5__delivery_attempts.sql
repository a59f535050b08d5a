-- One row per HTTP try of an outbox event, written in the transaction that records the try's outcome on the outbox
-- row, so an operator sees every try with what the destination answered. try_number is the outbox row's
-- retry_count + 1 at that try (a requeue starts a new round at 1; id orders the tries). No foreign key: attempts
-- move to the archive with their outbox row, in the same single-table statements.
-- result: delivered (2xx), refused (any other HTTP status), failed (no answer: timeout, connection error, unknown
-- destination). response_body is the first 512 bytes of the answer, response_length its full length.
CREATE TABLE delivery_attempts (
    id              BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    outbox_id       BIGINT UNSIGNED NOT NULL,
    try_number      INT             NOT NULL,
    destination     VARCHAR(64)     NOT NULL,
    attempted_at    DATETIME(3)     NOT NULL,
    result          VARCHAR(16)     NOT NULL,
    http_status     SMALLINT        NULL,
    error           VARCHAR(512)    NULL,
    latency_ms      INT             NOT NULL,
    response_length INT             NULL,
    response_body   VARBINARY(512)  NULL,
    PRIMARY KEY (id),
    KEY idx_delivery_attempts_outbox (outbox_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE delivery_attempts_archive LIKE delivery_attempts;
