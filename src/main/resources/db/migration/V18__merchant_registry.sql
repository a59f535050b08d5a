-- Merchants, platforms and their provider accounts as data (docs/configuration.md#merchants-as-data): what the admin
-- API and the console create. Those declared in properties are never written here. New tables only, so the release
-- before, which reads none of them, serves on this schema unchanged.
CREATE TABLE registry_owners (
    id         VARCHAR(32)  NOT NULL,
    -- merchant | platform: a platform's id is the last segment of its callback path, so the two share one key space.
    kind       VARCHAR(16)  NOT NULL,
    enabled    TINYINT      NOT NULL,
    created_at DATETIME(3)  NOT NULL,
    updated_at DATETIME(3)  NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One provider account of an owner: a merchant's own keys (direct), a merchant as a platform's sub-merchant, or a
-- platform's keys. Secret fields are sealed (AES-256-GCM under a data key of the row, itself wrapped by the
-- key-encryption key named in kek_id, which is never stored in the database); settings hold the rest as JSON.
CREATE TABLE registry_accounts (
    owner_id     VARCHAR(32)   NOT NULL,
    provider     VARCHAR(16)   NOT NULL,
    mode         VARCHAR(16)   NOT NULL,
    platform_id  VARCHAR(32)   NULL,
    sub_id       VARCHAR(64)   NULL,
    settings     TEXT          NOT NULL,
    kek_id       VARCHAR(32)   NULL,
    wrapped_key  VARBINARY(64) NULL,
    secrets      BLOB          NULL,
    updated_at   DATETIME(3)   NOT NULL,
    PRIMARY KEY (owner_id, provider),
    -- A sub-merchant id names one merchant of its platform (NULLs, of direct accounts, never collide).
    UNIQUE KEY uk_registry_accounts_sub (platform_id, provider, sub_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every change, in order: its id is the registry's version, which every instance polls to reload. Before and after
-- name secrets by fingerprint only.
CREATE TABLE registry_changes (
    id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
    actor      VARCHAR(64)     NOT NULL,
    action     VARCHAR(32)     NOT NULL,
    owner_id   VARCHAR(32)     NOT NULL,
    provider   VARCHAR(16)     NULL,
    before_doc TEXT            NULL,
    after_doc  TEXT            NULL,
    created_at DATETIME(3)     NOT NULL,
    PRIMARY KEY (id),
    KEY idx_registry_changes_owner (owner_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
