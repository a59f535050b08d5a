-- Archive tables keep the shape of their hot tables, so rows move unchanged (ops/Housekeeping copies by column name).
ALTER TABLE refund_callback_log_archive
    MODIFY amount DECIMAL(18, 2) NULL,
    ADD COLUMN refunded_total DECIMAL(18, 2) NULL AFTER amount;

-- Where a stored row came from: the provider's push (callback), our query of a payment (query), or the provider's
-- answer to a refund we submitted (submission). Same unique key whatever the origin, so one fact is stored once.
ALTER TABLE pay_callback_log ADD COLUMN origin VARCHAR(10) NOT NULL DEFAULT 'callback' AFTER currency;
ALTER TABLE pay_callback_log_archive ADD COLUMN origin VARCHAR(10) NOT NULL DEFAULT 'callback' AFTER currency;
ALTER TABLE refund_callback_log ADD COLUMN origin VARCHAR(10) NOT NULL DEFAULT 'callback' AFTER currency;
ALTER TABLE refund_callback_log_archive ADD COLUMN origin VARCHAR(10) NOT NULL DEFAULT 'callback' AFTER currency;

-- The enrolment sweep looks for PENDING orders older than paycallback.reconcile.after.
ALTER TABLE orders ADD KEY idx_orders_pending (status, created_at);

-- One row per PENDING order whose payment we ask the providers about, leased like every worked-off table.
-- status: 0 pending (retry_count = queries so far), 1 done (paid found, or the order settled otherwise), 2 dead (still
-- PENDING after the last scheduled query: alerted).
CREATE TABLE order_queries (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id   VARCHAR(32)     NOT NULL,
    out_trade_no  VARCHAR(64)     NOT NULL,
    status        TINYINT         NOT NULL DEFAULT 0,
    retry_count   INT             NOT NULL DEFAULT 0,
    next_retry_at DATETIME(3)     NOT NULL,
    lease_token   CHAR(36)        NULL,
    last_error    VARCHAR(512)    NULL,
    created_at    DATETIME(3)     NOT NULL,
    updated_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_order_queries_order (merchant_id, out_trade_no),
    KEY idx_order_queries_retry (status, next_retry_at),
    KEY idx_order_queries_lease (lease_token)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per refund we decided on and submit to the provider, written with the refund in the same transaction.
-- status: 0 pending, 1 done (accepted: the refund row is SUBMITTED or settled), 2 dead (rejected or out of tries).
CREATE TABLE refund_submissions (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id   VARCHAR(32)     NOT NULL,
    channel       VARCHAR(16)     NOT NULL,
    refund_no     VARCHAR(64)     NOT NULL,
    status        TINYINT         NOT NULL DEFAULT 0,
    retry_count   INT             NOT NULL DEFAULT 0,
    next_retry_at DATETIME(3)     NOT NULL,
    lease_token   CHAR(36)        NULL,
    last_error    VARCHAR(512)    NULL,
    created_at    DATETIME(3)     NOT NULL,
    updated_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_refund_submissions_refund (merchant_id, channel, refund_no),
    KEY idx_refund_submissions_retry (status, next_retry_at),
    KEY idx_refund_submissions_lease (lease_token)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
