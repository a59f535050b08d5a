-- The console's order timeline reads archived callbacks too (an order from months ago); the archive tables were
-- created before V7 gave the hot tables this key, and LIKE does not follow later changes. Online on MySQL 8 and
-- MariaDB 10.11, as in V7.
ALTER TABLE pay_callback_log_archive ADD KEY idx_pay_callback_order (merchant_id, out_trade_no);
ALTER TABLE refund_callback_log_archive ADD KEY idx_refund_callback_order (merchant_id, out_trade_no);
