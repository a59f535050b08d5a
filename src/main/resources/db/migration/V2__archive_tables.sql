-- Done rows past the retention move here, in batches, out of the hot tables whose unique keys and retry index every
-- callback touches. Same shape as the hot tables, so a row moves unchanged (ids included).
CREATE TABLE pay_callback_log_archive LIKE pay_callback_log;
CREATE TABLE refund_callback_log_archive LIKE refund_callback_log;
CREATE TABLE outbox_archive LIKE outbox;
