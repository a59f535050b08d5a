// Constant arrival rate of fresh, correctly signed payment callbacks. Environment, keys and thresholds: README.md.
import exec from 'k6/execution';
import { check } from 'k6';
import { acknowledged, registerOrderFor, send, signedCallback } from './lib/callback.js';
import { positiveInt } from './lib/config.js';
import { TREND_STATS, summaryWriter } from './lib/summary.js';

const RATE = positiveInt('RATE', 200);

export const options = {
  scenarios: {
    steady: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: __ENV.DURATION || '5m',
      // One VU keeps up with about 5 callbacks/s at 200 ms round trips; whole numbers only.
      preAllocatedVUs: Math.max(20, Math.ceil(RATE / 5)),
      maxVUs: RATE * 2,
    },
  },
  summaryTrendStats: TREND_STATS,
  thresholds: {
    'http_reqs{name:callback}': ['count>0'],
    'http_req_failed{name:callback}': ['rate<0.01'],
    'http_req_duration{name:callback}': [`p(99)<${positiveInt('P99_MS', 40)}`],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  return { runId: `k6s${Date.now().toString(36)}` };
}

/** @param {{ runId: string }} data */
export default async function (data) {
  const outTradeNo = `${data.runId}-${exec.scenario.iterationInTest}`;
  registerOrderFor(outTradeNo);
  const res = send(await signedCallback(outTradeNo));
  check(res, { 'acknowledged in the provider format': acknowledged });
}

export const handleSummary = summaryWriter('steady');
