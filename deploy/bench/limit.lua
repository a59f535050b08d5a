-- sysbench script: the database alone doing the fewest writes a paid order needs, in the service's own statements
-- (ledger/CallbackLedger INSERT_PAYMENT, order/Orders MARK_ALL_PAID, outbox/Outbox INSERT_COLUMNS + LEASED_VALUES,
-- lease/LeaseStatements FINISH_ALL, outbox/DeliveryAttempts DELIVERED_TRY), on copies of the service's tables that run.sh
-- makes with CREATE TABLE ... LIKE in the ceiling database, against PENDING orders it inserts there beforehand.
--
-- One sysbench event is one thread's batch of BATCH orders (50, the service's transaction-size):
--   BATCH autocommit INSERTs of the callback row, leased by this batch's token, each with a raw body of BODY bytes;
--   one transaction: the orders' UPDATE driven from the callbacks, one multi-row outbox INSERT of their order.paid
--   events (leased), the callback rows' fenced finish, COMMIT;
--   then the events' delivered finish (fenced per row, with the delivered try's columns), autocommit.
-- The service learns the ids from its INSERTs' OK packets; sysbench's Lua API does not expose them, so each batch
-- reads them back with one SELECT by lease token per table (two small index lookups per 50 orders).
-- orders/s = events/s x BATCH. Values are literals (text protocol), as in ceiling.lua.

local batch = tonumber(os.getenv("LIMIT_BATCH") or "50")
local per_thread = tonumber(os.getenv("LIMIT_ORDERS_PER_THREAD") or "3000")
local body = string.rep("x", tonumber(os.getenv("BENCH_BODY_BYTES") or "340"))

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   n = 0       -- orders of this thread so far; order L<tid>-<n> exists PENDING for n < per_thread
   b = 0
   run = string.format("%d-%d", os.time(), sysbench.tid)
end

local function ids(rs)
   local out = {}
   for _ = 1, rs.nrows do
      out[#out + 1] = rs:fetch_row()[1]
   end
   return out
end

function event()
   b = b + 1
   -- A lease token is a UUID (36 characters) in the service.
   local token = string.format("%-36s", "lim-" .. run .. "-" .. b):gsub(" ", "0")
   local outs = {}
   for _ = 1, batch do
      local out_trade_no = string.format("L%d-%d", sysbench.tid, n % per_thread)
      n = n + 1
      outs[#outs + 1] = out_trade_no
      con:query(string.format([[INSERT INTO pay_callback_log
                (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency, origin,
                 status, retry_count, lease_token, next_retry_at, raw_body, created_at, updated_at)
            VALUES ('default', 'stripe', 'pi_%s-%s', '%s', 'succeeded', 88.00, 'USD', 'callback', 0, 0, '%s',
                    DATE_ADD(NOW(3), INTERVAL 60000000 MICROSECOND), '%s', NOW(3), NOW(3))]],
         run, out_trade_no, out_trade_no, token, body))
   end
   local cb = ids(con:query(string.format(
      "SELECT id FROM pay_callback_log WHERE lease_token = '%s' AND status = 0", token)))

   con:query("BEGIN")
   con:query(string.format([[UPDATE pay_callback_log p STRAIGHT_JOIN orders o ON o.merchant_id = p.merchant_id AND o.out_trade_no = p.out_trade_no
            SET o.status = 'PAID', o.channel = p.channel, o.channel_trade_no = p.channel_trade_no, o.paid_at = NOW(3),
                o.updated_at = NOW(3)
            WHERE p.id IN (%s) AND o.status = 'PENDING' AND o.amount = p.amount AND o.currency = p.currency]],
      table.concat(cb, ", ")))
   local values = {}
   for i, id in ipairs(cb) do
      local o = outs[i] or outs[1]
      values[#values + 1] = string.format([[('pay:%s', 'order.paid', 'sink', 'default', '%s', '{"id":"pay:%s:order.paid","type":"order.paid","merchantId":"default","outTradeNo":"%s","channel":"stripe","channelTradeNo":"pi_%s","refundNo":null,"amount":"88.00","refundAmount":null,"refundedTotal":null,"currency":"USD","reason":null,"occurredAt":"2026-12-03T18:45:09.315425998Z"}', 0, 0, '%s', DATE_ADD(NOW(3), INTERVAL 60000000 MICROSECOND), NOW(3), NOW(3))]],
         id, o, id, o, o, token)
   end
   con:query([[INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
                                lease_token, next_retry_at, created_at, updated_at)
            VALUES ]] .. table.concat(values, ", "))
   local pairs_ = {}
   for _, id in ipairs(cb) do
      pairs_[#pairs_ + 1] = string.format("(%s, '%s')", id, token)
   end
   con:query(string.format([[UPDATE pay_callback_log SET status = 1, lease_token = NULL, last_error = NULL, updated_at = NOW(3)
            WHERE id IN (%s) AND (id, lease_token) IN (%s)]], table.concat(cb, ", "), table.concat(pairs_, ", ")))
   con:query("COMMIT")

   -- The events' delivered finish: one CASE over the ids per delivered_* column, fenced by (id, token).
   local ev = ids(con:query(string.format(
      "SELECT id FROM outbox WHERE lease_token = '%s' AND status = 0", token)))
   local cases = { at = {}, st = {}, lat = {}, len = {}, resp = {} }
   local fence = {}
   for _, id in ipairs(ev) do
      cases.at[#cases.at + 1] = string.format("WHEN %s THEN 1200", id)
      cases.st[#cases.st + 1] = string.format("WHEN %s THEN 200", id)
      cases.lat[#cases.lat + 1] = string.format("WHEN %s THEN 1", id)
      cases.len[#cases.len + 1] = string.format("WHEN %s THEN 2", id)
      cases.resp[#cases.resp + 1] = string.format("WHEN %s THEN 'ok'", id)
      fence[#fence + 1] = string.format("(%s, '%s')", id, token)
   end
   con:query(string.format([[UPDATE outbox SET status = 1, lease_token = NULL, last_error = NULL, updated_at = NOW(3),
         delivered_at = DATE_SUB(NOW(3), INTERVAL CASE id %s END MICROSECOND),
         delivered_http_status = CASE id %s END, delivered_latency_ms = CASE id %s END,
         delivered_response_length = CASE id %s END, delivered_response_body = CASE id %s END
            WHERE id IN (%s) AND (id, lease_token) IN (%s)]],
      table.concat(cases.at, " "), table.concat(cases.st, " "), table.concat(cases.lat, " "),
      table.concat(cases.len, " "), table.concat(cases.resp, " "), table.concat(ev, ", "), table.concat(fence, ", ")))
end

function thread_done()
   con:disconnect()
end
