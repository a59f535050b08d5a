-- orders.status gains CLOSING: asked to close, the provider's answer not had yet. CLOSING → CLOSED when the provider
-- says closed (or never created), → PAID when a payment arrives or the provider says it was paid.

-- One row per order being closed at its providers, written with PENDING → CLOSING in one transaction, leased like
-- every worked-off table. status: 0 pending (retry_count = failed tries), 1 done (closed, or paid meanwhile), 2 dead
-- (out of tries or refused: the order stays CLOSING and an operator decides).
CREATE TABLE close_requests (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id   VARCHAR(32)     NOT NULL,
    out_trade_no  VARCHAR(64)     NOT NULL,
    requested_by  VARCHAR(64)     NOT NULL,
    outcome       VARCHAR(16)     NULL,
    status        TINYINT         NOT NULL DEFAULT 0,
    retry_count   INT             NOT NULL DEFAULT 0,
    next_retry_at DATETIME(3)     NOT NULL,
    lease_token   CHAR(36)        NULL,
    last_error    VARCHAR(512)    NULL,
    created_at    DATETIME(3)     NOT NULL,
    updated_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_close_requests_order (merchant_id, out_trade_no),
    KEY idx_close_requests_retry (status, next_retry_at),
    KEY idx_close_requests_lease (lease_token)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every call to a provider's API made for an order (payment query, close, refund submission, refund query): what was
-- asked and what came back, in words (never a body, key or signature), for the order's timeline. Append-only.
CREATE TABLE provider_calls (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id   VARCHAR(32)     NOT NULL,
    out_trade_no  VARCHAR(64)     NULL,
    channel       VARCHAR(16)     NOT NULL,
    operation     VARCHAR(24)     NOT NULL,
    subject       VARCHAR(64)     NULL,
    answer        VARCHAR(512)    NOT NULL,
    created_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    KEY idx_provider_calls_order (merchant_id, out_trade_no),
    KEY idx_provider_calls_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Auto-expiry (paycallback.orders.expire-after) looks for old PENDING orders by idx_orders_pending (status, created_at).
