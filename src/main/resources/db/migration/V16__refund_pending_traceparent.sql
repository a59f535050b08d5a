-- The traceparent of the callback span that stored a pending refund notice (docs/operations.md#tracing), as V15 added
-- it to the other callback logs: the refund it enrols for the queries keeps it, so that each query and the refund's
-- settlement continue the notice's trace. NULL while tracing is off, and for the rows of a release that does not know
-- the column, which names only its own columns in its INSERTs; the archive gets it too, copied by name.
ALTER TABLE refund_pending_log ADD COLUMN traceparent VARCHAR(55) NULL;
ALTER TABLE refund_pending_log_archive ADD COLUMN traceparent VARCHAR(55) NULL;
