-- The console's charts of the last hours (docs/operations.md#the-operator-console): each instance writes what it counted
-- in a minute once that minute is over, one row per series, label, instance and write (a count that comes in late
-- for a minute already written is written again, as a row of its own), and the charts sum (counts) or take
-- the largest (samples such as a backlog) over the instances. Rows older than a day are deleted by the instances that
-- write them. A new table only: the release before reads none of it.
CREATE TABLE trend_minutes (
    -- Minutes since 1970-01-01 UTC, by the writing instance's clock.
    minute   BIGINT       NOT NULL,
    series   VARCHAR(24)  NOT NULL,
    label    VARCHAR(96)  NOT NULL,
    instance VARCHAR(64)  NOT NULL,
    -- The writing instance's count of its writes: no INSERT of it can meet a row of an earlier one.
    seq      BIGINT       NOT NULL,
    value    BIGINT       NOT NULL,
    PRIMARY KEY (minute, series, label, instance, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
