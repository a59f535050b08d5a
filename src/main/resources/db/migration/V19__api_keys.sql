-- The order service's API keys as data (docs/operations.md#api-keys): made and revoked through the admin API and the
-- console, each scoped to merchants. Only a SHA-256 of a key's secret is stored: the key itself is shown once, when it
-- is made. Rows are never deleted, so the count of rows and of revoked rows together change with every change, and
-- every instance polls those two numbers to reload. A new table only: the release before reads none of it.
CREATE TABLE api_keys (
    -- The 8 characters after pck_ in the key: shown in lists and logs to recognise a key without revealing it.
    id            CHAR(8)        NOT NULL,
    name          VARCHAR(64)    NOT NULL,
    secret_sha256 BINARY(32)     NOT NULL,
    -- Merchant ids separated by spaces (an id is 1-32 letters, digits, '_' or '-').
    merchants     VARCHAR(1024)  NOT NULL,
    created_by    VARCHAR(64)    NOT NULL,
    created_at    DATETIME(3)    NOT NULL,
    revoked_by    VARCHAR(64)    NULL,
    revoked_at    DATETIME(3)    NULL,
    -- Written at most once a minute per key and instance, off the request.
    last_used_at  DATETIME(3)    NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
