-- Runs unchanged on MySQL 8 and MariaDB 10.11. Single-table statements only, no triggers or procedures, so the same
-- schema can move to a distributed MySQL-compatible engine.

-- status: 0 pending, 1 done, 2 dead. next_retry_at doubles as the lease expiry while a worker holds lease_token.
CREATE TABLE pay_callback_log (
    id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id      VARCHAR(32)     NOT NULL,
    channel          VARCHAR(16)     NOT NULL,
    channel_trade_no VARCHAR(64)     NOT NULL,
    out_trade_no     VARCHAR(64)     NOT NULL,
    trade_state      VARCHAR(32)     NOT NULL,
    amount           DECIMAL(18, 2)  NOT NULL,
    currency         CHAR(3)         NOT NULL,
    status           TINYINT         NOT NULL DEFAULT 0,
    retry_count      INT             NOT NULL DEFAULT 0,
    next_retry_at    DATETIME(3)     NOT NULL,
    lease_token      CHAR(36)        NULL,
    last_error       VARCHAR(512)    NULL,
    raw_body         MEDIUMBLOB      NOT NULL,
    created_at       DATETIME(3)     NOT NULL,
    updated_at       DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_pay_callback_trade (merchant_id, channel, channel_trade_no),
    KEY idx_pay_callback_retry (status, next_retry_at),
    KEY idx_pay_callback_lease (lease_token)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE refund_callback_log (
    id                BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id       VARCHAR(32)     NOT NULL,
    channel           VARCHAR(16)     NOT NULL,
    refund_no         VARCHAR(64)     NOT NULL,
    channel_refund_id VARCHAR(64)     NULL,
    channel_trade_no  VARCHAR(64)     NULL,
    out_trade_no      VARCHAR(64)     NULL,
    refund_state      VARCHAR(16)     NOT NULL,
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
    UNIQUE KEY uk_refund_callback_refund (merchant_id, channel, refund_no),
    KEY idx_refund_callback_retry (status, next_retry_at),
    KEY idx_refund_callback_lease (lease_token)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- status: PENDING, PAID, CLOSED, REFUNDED.
CREATE TABLE orders (
    id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id      VARCHAR(32)     NOT NULL,
    out_trade_no     VARCHAR(64)     NOT NULL,
    amount           DECIMAL(18, 2)  NOT NULL,
    currency         CHAR(3)         NOT NULL,
    status           VARCHAR(16)     NOT NULL,
    channel          VARCHAR(16)     NULL,
    channel_trade_no VARCHAR(64)     NULL,
    refunded_amount  DECIMAL(18, 2)  NOT NULL DEFAULT 0,
    paid_at          DATETIME(3)     NULL,
    closed_at        DATETIME(3)     NULL,
    created_at       DATETIME(3)     NOT NULL,
    updated_at       DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_orders_out_trade_no (merchant_id, out_trade_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Refunds this service requested (paid twice, paid after close) or learned of from a refund callback.
-- status: REQUESTED, SUCCEEDED, FAILED.
CREATE TABLE refunds (
    id                BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id       VARCHAR(32)     NOT NULL,
    channel           VARCHAR(16)     NOT NULL,
    refund_no         VARCHAR(64)     NOT NULL,
    channel_refund_id VARCHAR(64)     NULL,
    out_trade_no      VARCHAR(64)     NULL,
    channel_trade_no  VARCHAR(64)     NULL,
    amount            DECIMAL(18, 2)  NOT NULL,
    currency          CHAR(3)         NOT NULL,
    status            VARCHAR(16)     NOT NULL,
    reason            VARCHAR(64)     NOT NULL,
    created_at        DATETIME(3)     NOT NULL,
    updated_at        DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_refunds_refund_no (merchant_id, channel, refund_no),
    KEY idx_refunds_order (merchant_id, out_trade_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per downstream event and destination, written in the business transaction that caused it.
CREATE TABLE outbox (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    source        VARCHAR(96)     NOT NULL,
    type          VARCHAR(32)     NOT NULL,
    destination   VARCHAR(64)     NOT NULL,
    merchant_id   VARCHAR(32)     NOT NULL,
    out_trade_no  VARCHAR(64)     NULL,
    payload       TEXT            NOT NULL,
    status        TINYINT         NOT NULL DEFAULT 0,
    retry_count   INT             NOT NULL DEFAULT 0,
    next_retry_at DATETIME(3)     NOT NULL,
    lease_token   CHAR(36)        NULL,
    last_error    VARCHAR(512)    NULL,
    created_at    DATETIME(3)     NOT NULL,
    updated_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_outbox_event (source, type, destination),
    KEY idx_outbox_retry (status, next_retry_at),
    KEY idx_outbox_lease (lease_token),
    KEY idx_outbox_order (merchant_id, out_trade_no)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Signed callbacks we could not parse: kept for a person to look at, one row per distinct body.
CREATE TABLE quarantine (
    id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id VARCHAR(32)     NOT NULL,
    channel     VARCHAR(16)     NOT NULL,
    kind        VARCHAR(8)      NOT NULL,
    reason      VARCHAR(255)    NOT NULL,
    body_hash   CHAR(64)        NOT NULL,
    body_length INT             NOT NULL,
    raw_body    MEDIUMBLOB      NOT NULL,
    created_at  DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_quarantine_body (body_hash)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
