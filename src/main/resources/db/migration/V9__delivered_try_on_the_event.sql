-- The try that delivers an event is kept on the event's own row, set by the fenced finish that marks it done, instead
-- of as a delivery_attempts row: the drain then writes one row per delivered event, not two (issue 13 allows the
-- attempt log 5% of the drain; the extra INSERT cost about 6%). delivery_attempts keeps every try that did not
-- deliver, and a delivered try whose lease was lost meanwhile. The delivered try's number is the row's retry_count
-- + 1: a finish does not count, and only a dead row is ever requeued. NULL until delivered; old rows keep their
-- delivered try in delivery_attempts.
ALTER TABLE outbox
    ADD COLUMN delivered_at              DATETIME(3)    NULL,
    ADD COLUMN delivered_http_status     SMALLINT       NULL,
    ADD COLUMN delivered_latency_ms      INT            NULL,
    ADD COLUMN delivered_response_length INT            NULL,
    ADD COLUMN delivered_response_body   VARBINARY(512) NULL;

ALTER TABLE outbox_archive
    ADD COLUMN delivered_at              DATETIME(3)    NULL,
    ADD COLUMN delivered_http_status     SMALLINT       NULL,
    ADD COLUMN delivered_latency_ms      INT            NULL,
    ADD COLUMN delivered_response_length INT            NULL,
    ADD COLUMN delivered_response_body   VARBINARY(512) NULL;
