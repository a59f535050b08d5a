-- Refund notices of a refund the provider is still working on (Stripe "pending", WeChat Pay "PROCESSING"): stored on
-- ingest like every notice, raw body kept, and enrolled by a worker for the refund queries. A table of their own: the
-- refund's final notice takes the same key in refund_callback_log, and a release that predates this table never
-- reads a pending notice as a final one.
-- status: 0 pending, 1 done (enrolled, or the refund known already), 2 dead, 3 done with the raw body blanked.
CREATE TABLE refund_pending_log (
    id                BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id       VARCHAR(32)     NOT NULL,
    channel           VARCHAR(16)     NOT NULL,
    refund_no         VARCHAR(64)     NOT NULL,
    channel_refund_id VARCHAR(64)     NULL,
    channel_trade_no  VARCHAR(64)     NULL,
    out_trade_no      VARCHAR(64)     NULL,
    amount            DECIMAL(18, 2)  NOT NULL,
    currency          CHAR(3)         NOT NULL,
    status            TINYINT         NOT NULL DEFAULT 0,
    retry_count       INT             NOT NULL DEFAULT 0,
    next_retry_at     DATETIME(3)     NOT NULL,
    lease_token       CHAR(36)        NULL,
    last_error        VARCHAR(512)    NULL,
    raw_body          MEDIUMBLOB      NOT NULL,
    created_at        DATETIME(3)     NOT NULL,
    updated_at        DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_refund_pending_refund (merchant_id, channel, refund_no),
    KEY idx_refund_pending_retry (status, next_retry_at),
    KEY idx_refund_pending_lease (lease_token)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE refund_pending_log_archive LIKE refund_pending_log;
