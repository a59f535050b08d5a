-- Daily statement reconciliation (issue 20). Same SQL on MySQL 8 and MariaDB 10.11.

-- One run per merchant, provider and bill date (the provider's day: Asia/Shanghai for WeChat Pay and Alipay, UTC for
-- Stripe), leased like every worked-off table. status: 0 pending, 1 done (compared), 2 dead (out of tries: alerted).
-- state says what the run came to for an operator: PENDING, CREATING (the provider is still making the bill, asked
-- again later), RETRYING (the last try failed), MATCHED, DIFFERENCES, FAILED (dead).
-- bill_* are the file's lines, our_* the ledger's rows of the same day; refund sums are positive.
CREATE TABLE statement_runs (
    id                 BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    merchant_id        VARCHAR(32)     NOT NULL,
    channel            VARCHAR(16)     NOT NULL,
    bill_date          DATE            NOT NULL,
    state              VARCHAR(16)     NOT NULL,
    file_digest        VARCHAR(80)     NULL,
    bill_payment_count BIGINT          NULL,
    bill_payment_sum   DECIMAL(18, 2)  NULL,
    bill_refund_count  BIGINT          NULL,
    bill_refund_sum    DECIMAL(18, 2)  NULL,
    our_payment_count  BIGINT          NULL,
    our_payment_sum    DECIMAL(18, 2)  NULL,
    our_refund_count   BIGINT          NULL,
    our_refund_sum     DECIMAL(18, 2)  NULL,
    lines_compared     BIGINT          NULL,
    compared_at        DATETIME(3)     NULL,
    status             TINYINT         NOT NULL DEFAULT 0,
    retry_count        INT             NOT NULL DEFAULT 0,
    next_retry_at      DATETIME(3)     NOT NULL,
    lease_token        CHAR(36)        NULL,
    last_error         VARCHAR(512)    NULL,
    created_at         DATETIME(3)     NOT NULL,
    updated_at         DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_statement_runs_day (merchant_id, channel, bill_date),
    KEY idx_statement_runs_retry (status, next_retry_at),
    KEY idx_statement_runs_lease (lease_token),
    KEY idx_statement_runs_compared (channel, state, compared_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A bill's lines, staged while the file streams in (multi-row INSERTs), compared with set-based statements once the
-- whole file has verified. item: P payment, R refund. ident: the provider's identity of the line (the payment's trade
-- number; a refund's our-number, else the provider's refund id). Kept for cross-day-window + 1 days after the bill
-- date, so our rows booked by the provider on a neighbouring day are found listed; then deleted.
CREATE TABLE statement_lines (
    run_id       BIGINT UNSIGNED NOT NULL,
    line_no      BIGINT          NOT NULL,
    item         CHAR(1)         NOT NULL,
    ident        VARCHAR(64)     NOT NULL,
    out_trade_no VARCHAR(64)     NULL,
    trade_no     VARCHAR(64)     NULL,
    refund_no    VARCHAR(64)     NULL,
    refund_id    VARCHAR(64)     NULL,
    amount       DECIMAL(18, 2)  NOT NULL,
    currency     CHAR(3)         NOT NULL,
    state        VARCHAR(12)     NOT NULL,
    PRIMARY KEY (run_id, line_no),
    KEY idx_statement_lines_ident (run_id, item, ident)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- What a run found to differ. item: PAYMENT or REFUND; ident as in statement_lines (for our rows: the trade number or
-- the refund number). state: WAITING (missing at the provider, inside the cross-day window: a later bill may still
-- list it), OPEN, REPAIRED (the provider's verified answer was stored through the ledger), RESOLVED (by an operator,
-- with a note, or by a later bill listing a waiting row). A re-run deletes and recomputes its WAITING and OPEN rows;
-- REPAIRED and RESOLVED rows stay, and the unique key keeps them from coming back.
CREATE TABLE statement_discrepancies (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    run_id        BIGINT UNSIGNED NOT NULL,
    merchant_id   VARCHAR(32)     NOT NULL,
    channel       VARCHAR(16)     NOT NULL,
    bill_date     DATE            NOT NULL,
    kind          VARCHAR(24)     NOT NULL,
    item          VARCHAR(8)      NOT NULL,
    ident         VARCHAR(64)     NOT NULL,
    out_trade_no  VARCHAR(64)     NULL,
    trade_no      VARCHAR(64)     NULL,
    refund_no     VARCHAR(64)     NULL,
    refund_id     VARCHAR(64)     NULL,
    bill_amount   DECIMAL(18, 2)  NULL,
    bill_currency CHAR(3)         NULL,
    bill_state    VARCHAR(12)     NULL,
    our_amount    DECIMAL(18, 2)  NULL,
    our_currency  CHAR(3)         NULL,
    our_state     VARCHAR(16)     NULL,
    state         VARCHAR(10)     NOT NULL,
    due_at        DATETIME(3)     NULL,
    note          VARCHAR(512)    NULL,
    resolved_by   VARCHAR(64)     NULL,
    resolved_at   DATETIME(3)     NULL,
    opened_at     DATETIME(3)     NULL,
    created_at    DATETIME(3)     NOT NULL,
    updated_at    DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uk_statement_discrepancies (run_id, kind, item, ident),
    KEY idx_statement_discrepancies_ident (merchant_id, channel, item, ident),
    KEY idx_statement_discrepancies_state (state, kind, opened_at),
    KEY idx_statement_discrepancies_day (bill_date, channel)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Our side of a day: payments by the time we stored them, refunds by the time they settled; both are ranges of one
-- merchant and provider. created_at only grows, so the payment logs' new key is appended to, never rewritten.
ALTER TABLE pay_callback_log ADD KEY idx_pay_callback_day (merchant_id, channel, created_at);
ALTER TABLE pay_callback_log_archive ADD KEY idx_pay_callback_day (merchant_id, channel, created_at);
-- A provider's refund id finds our refund when the bill does not echo our refund number (a Stripe dashboard refund).
ALTER TABLE refunds
    ADD KEY idx_refunds_provider_id (merchant_id, channel, channel_refund_id),
    ADD KEY idx_refunds_settled (merchant_id, channel, status, updated_at);
