-- sysbench script: the database's own ceiling for what one callback costs, i.e. one single-row autocommit INSERT into
-- a table shaped like pay_callback_log (created by run.sh from the Flyway migration), with a raw body of realistic size.
-- Unique keys come from the thread number and a per-thread counter, so no INSERT hits a duplicate.

local body = string.rep("x", tonumber(os.getenv("BENCH_BODY_BYTES") or "420"))

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
   n = 0
   prefix = string.format("c%d-%d-", os.time(), sysbench.tid)
end

function event()
   n = n + 1
   con:query(string.format([[INSERT INTO ceiling_callback_log
      (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency, status, retry_count,
       next_retry_at, raw_body, created_at, updated_at)
      VALUES ('default', 'stripe', 'pi_%s%d', '%s%d', 'SUCCESS', 88.00, 'USD', 0, 0, NOW(3), '%s', NOW(3), NOW(3))]],
      prefix, n, prefix, n, body))
end

function thread_done()
   con:disconnect()
end
