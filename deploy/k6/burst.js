// A spike well past the gate (paycallback.callback.max-concurrency): the service must shed with 503
// in the provider's format, never time out or answer 5xx otherwise, and recover once the spike passes.
// Environment, keys and thresholds: README.md; RATE is the base and PEAK the spike's arrival rate per second.
import exec from 'k6/execution';
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
import { acknowledged, registerOrderFor, send, signedCallback } from './lib/callback.js';
import { positiveInt } from './lib/config.js';
import { TREND_STATS, summaryWriter } from './lib/summary.js';

const BASE = positiveInt('RATE', 100);
const PEAK = positiveInt('PEAK', 2000);
const shed = new Counter('callbacks_shed');

// 503 is the designed answer to overload; only other failures count against http_req_failed.
http.setResponseCallback(http.expectedStatuses(200, 201, 409, 503));

export const options = {
  scenarios: {
    burst: {
      executor: 'ramping-arrival-rate',
      startRate: BASE,
      timeUnit: '1s',
      preAllocatedVUs: 200,
      maxVUs: Math.max(200, PEAK),
      stages: [
        { target: BASE, duration: '1m' },
        { target: PEAK, duration: '10s' },
        { target: PEAK, duration: '30s' },
        { target: BASE, duration: '10s' },
        { target: BASE, duration: '2m' },
      ],
    },
  },
  summaryTrendStats: TREND_STATS,
  thresholds: {
    'http_reqs{name:callback}': ['count>0'],
    'http_req_failed{name:callback}': ['rate<0.01'],
    // Shedding must be immediate, not queued behind the database.
    'http_req_duration{name:callback}': [`p(99)<${positiveInt('P99_MS', 1000)}`],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  return { runId: `k6b${Date.now().toString(36)}` };
}

/** @param {{ runId: string }} data */
export default async function (data) {
  const outTradeNo = `${data.runId}-${exec.scenario.iterationInTest}`;
  registerOrderFor(outTradeNo);
  const res = send(await signedCallback(outTradeNo));
  if (res.status === 503) {
    shed.add(1);
  }
  check(res, { 'acknowledged or shed': (r) => r.status === 503 || acknowledged(r) });
}

export const handleSummary = summaryWriter('burst');
