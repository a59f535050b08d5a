-- Replays pre-signed callbacks written by io.paycallback.bench.RequestGenerator ("{length}\n{raw request}" records).
-- wrk cannot sign, so every request is signed ahead of time. Each wrk thread takes its own slice of the file, so no
-- callback is sent twice, and stops once its slice is used up: a run that outpaces the file ends early instead of
-- turning into a duplicate storm. With "cycle" (the duplicate storm) every thread loops over the whole file.
-- With "once" (the e2e phase) every request of the file is sent exactly once and every answer is awaited: a
-- connection that finds its thread's slice used up stays idle instead of resending, and a thread that has all its
-- answers writes "e2e: thread done" to stderr and stops; run.sh then ends wrk's -d early with SIGINT.
-- Usage: wrk -t N ... -s ingest.lua http://127.0.0.1:8080 -- FILE N [cycle|once]

local threads = {}
local counter = 0

function setup(thread)
   thread:set("id", counter)
   counter = counter + 1
   table.insert(threads, thread)
end

function init(args)
   local path = args[1]
   local f = assert(io.open(path, "rb"))
   local all = {}
   while true do
      local len = f:read("*l")
      if not len then break end
      all[#all + 1] = f:read(tonumber(len))
   end
   f:close()
   local n = #all
   local nthreads = tonumber(args[2]) or 1
   reqs = {}
   idx = 0
   sent = 0
   non200 = 0
   ok200 = 0
   answered = 0
   exhausted = 0
   if args[3] == "cycle" then
      -- Duplicate storm: every thread cycles through the whole file forever (wrk's -d bounds the run).
      reqs = all
      cycle = true
      return
   end
   local slice = math.floor(n / nthreads)
   local first = id * slice + 1
   local last = (id == nthreads - 1) and n or (first + slice - 1)
   for i = first, last do reqs[#reqs + 1] = all[i] end
   all = nil
   collectgarbage()
   if args[3] == "once" then
      once = true
      -- wrk calls request() once on the first thread's state right after its init(), only to check that the
      -- request parses; that call sends nothing, so it must not use up a callback.
      verify_call = (id == 0)
      -- An empty slice has no answers to wait for (its connections idle; wrk's own stop ends them).
      if #reqs == 0 then io.stderr:write("e2e: thread done\n") end
   end
end

function thread_done()
   io.stderr:write("e2e: thread done\n")
   wrk.thread:stop()
end

function request()
   if once then
      if verify_call then
         verify_call = false
         return reqs[1]
      end
      if idx >= #reqs then
         -- Nothing left for this connection: an empty request writes no bytes, so it idles until the thread stops.
         exhausted = 1
         return ""
      end
      idx = idx + 1
      sent = sent + 1
      return reqs[idx]
   end
   idx = idx + 1
   if idx > #reqs and cycle then
      idx = 1
   elseif idx > #reqs then
      -- Out of callbacks: resend the last one and stop; its answer is a duplicate, which the service acks with 200.
      exhausted = 1
      wrk.thread:stop()
      idx = #reqs
   end
   sent = sent + 1
   return reqs[idx]
end

function response(status, headers, body)
   answered = answered + 1
   if status == 200 then
      ok200 = ok200 + 1
   else
      non200 = non200 + 1
      if non200 <= 3 then io.stderr:write("non-200: " .. status .. " " .. tostring(body):sub(1, 200) .. "\n") end
   end
   if once and answered == #reqs then thread_done() end
end

function done(summary, latency, requests)
   local non = 0
   local ex = 0
   local count = 0
   local ok = 0
   for _, t in ipairs(threads) do
      non = non + (tonumber(t:get("non200")) or 0)
      ok = ok + (tonumber(t:get("ok200")) or 0)
      ex = ex + (tonumber(t:get("exhausted")) or 0)
      count = count + (tonumber(t:get("sent")) or 0)
   end
   local secs = summary.duration / 1e6
   local e = summary.errors
   -- One machine-readable line for run.sh; latencies in ms.
   io.write(string.format(
      "RESULT requests=%d rps=%.1f p50=%.2f p99=%.2f max=%.2f non200=%d ok200=%d sent=%d socket_errors=%d timeouts=%d exhausted_threads=%d secs=%.2f\n",
      summary.requests, summary.requests / secs, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
      latency.max / 1000, non, ok, count, e.connect + e.read + e.write, e.timeout, ex, secs))
end
