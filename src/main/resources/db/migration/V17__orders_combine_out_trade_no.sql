-- The combine payment (WeChat Pay 合单) an order is paid in, when the order service made one: a query for an order
-- whose notice never came must ask for the combine, which is the only way WeChat Pay answers for its orders.
-- Nullable and last, so an INSERT of the release before, which names only its own columns, still succeeds, and
-- MySQL 8 and MariaDB add it without copying the table.
ALTER TABLE orders ADD COLUMN combine_out_trade_no VARCHAR(64) NULL;
