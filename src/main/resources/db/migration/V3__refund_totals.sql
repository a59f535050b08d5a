-- Providers state refund money in two ways: a refund's own amount (WeChat amount.refund, a Stripe refund's amount) or
-- the payment's running total refunded (Alipay refund_fee, a Stripe charge's amount_refunded). A notice carries
-- whichever it has, so either column may be empty; an order's refunded amount is derived from both (order/Refunds).
ALTER TABLE refund_callback_log
    MODIFY amount DECIMAL(18, 2) NULL,
    ADD COLUMN refunded_total DECIMAL(18, 2) NULL AFTER amount;

ALTER TABLE refunds
    MODIFY amount DECIMAL(18, 2) NULL,
    ADD COLUMN refunded_total DECIMAL(18, 2) NULL AFTER amount,
    ADD KEY idx_refunds_payment (merchant_id, channel, channel_trade_no);
