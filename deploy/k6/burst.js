// A spike well past the gate (paycallback.callback.max-concurrency): the service must shed with 503
// in the provider's format, never time out or answer 5xx otherwise, and recover once the spike passes.
//   Same environment as steady.js; PEAK sets the spike's arrival rate per second.
import exec from 'k6/execution';
import http from 'k6/http';
import { check } from 'k6';
import { Counter } from 'k6/metrics';
import { acknowledged, registerOrder, send, signedCallback } from './lib/callback.js';

const BASE = Number(__ENV.RATE || 100);
const PEAK = Number(__ENV.PEAK || 2000);
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
      maxVUs: 2000,
      stages: [
        { target: BASE, duration: '1m' },
        { target: PEAK, duration: '10s' },
        { target: PEAK, duration: '30s' },
        { target: BASE, duration: '10s' },
        { target: BASE, duration: '2m' },
      ],
    },
  },
  thresholds: {
    'http_req_failed{name:callback}': ['rate<0.01'],
    // Shedding must be immediate, not queued behind the database.
    'http_req_duration{name:callback}': ['p(99)<1000'],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  return { runId: `k6b${Date.now().toString(36)}` };
}

export default async function (data) {
  const outTradeNo = `${data.runId}-${exec.scenario.iterationInTest}`;
  registerOrder(outTradeNo);
  const res = send(await signedCallback(outTradeNo));
  if (res.status === 503) {
    shed.add(1);
  }
  check(res, { 'acknowledged or shed': (r) => r.status === 503 || acknowledged(r) });
}
