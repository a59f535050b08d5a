-- The oldest release that can still serve this schema, named by the highest migration it ships. Every migration adds
-- (expand) and leaves it as it is, so the previous release keeps serving and can be rolled back to; a migration that
-- removes or changes what older releases read (contract) raises it to its own version, and an older release then
-- refuses to start on this database (ops/SchemaCompatibilityCheck) instead of misreading it. See docs/changes.md.
CREATE TABLE schema_compatibility (
    id            TINYINT NOT NULL,
    oldest_reader INT     NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO schema_compatibility (id, oldest_reader) VALUES (1, 1);
