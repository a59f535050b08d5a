-- The console's order timeline lists every callback of one order; without these it would scan the whole log.
-- ADD INDEX is online on both MySQL 8 and MariaDB 10.11 (in place, no table lock).
ALTER TABLE pay_callback_log ADD KEY idx_pay_callback_order (merchant_id, out_trade_no);
ALTER TABLE refund_callback_log ADD KEY idx_refund_callback_order (merchant_id, out_trade_no);
