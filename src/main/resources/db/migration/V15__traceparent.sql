-- The W3C traceparent of the work that wrote a row (docs/operations.md#tracing): a callback's span on the callback
-- logs and on the refund submission a payment causes, the transition's span on the outbox events it causes, the
-- request's span on a close request. The transition, every delivery try and every try of a submission
-- or close continue that trace from the stored value, on any instance and after any restart. NULL while tracing is off, and for the rows of a
-- release that does not know the column, which names only its own columns in its INSERTs. The archives get it too:
-- housekeeping copies a row's columns by name, in this release and in the previous one.
ALTER TABLE pay_callback_log ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE pay_callback_log_archive ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE refund_callback_log ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE refund_callback_log_archive ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE outbox ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE outbox_archive ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE refund_submissions ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE close_requests ADD COLUMN traceparent VARCHAR(55) NULL;
