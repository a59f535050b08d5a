// Many VUs pushing the same signed callback at once, as a provider retrying through several gateways would: every
// answer is success (or busy), and the order is paid exactly once. Environment, keys and thresholds: README.md;
// ADMIN_URL and ADMIN_TOKEN are required, since the verdict comes from the admin API.
import http from 'k6/http';
import { check, fail } from 'k6';
import { Counter } from 'k6/metrics';
import { acknowledged, freshSigningInputs, registerOrderFor, send, signedCallback } from './lib/callback.js';
import { adminUrl, positiveInt, required } from './lib/config.js';
import { awaitPaid, paidTransitions } from './lib/admin.js';
import { TREND_STATS, summaryWriter } from './lib/summary.js';

// The providers accept a signature for 5 minutes (WeChat Pay) or 300 s (Stripe); re-signing every minute keeps a
// storm of any length inside both, as a provider re-signs each redelivery of the same body.
const RESIGN_EVERY_SECONDS = 60;
const PAID_ONCE = 'order.paid exactly once';

const shed = new Counter('callbacks_shed');
http.setResponseCallback(http.expectedStatuses(200, 201, 409, 503));

required('ADMIN_TOKEN');
adminUrl();

export const options = {
  scenarios: {
    storm: {
      executor: 'constant-vus',
      vus: positiveInt('VUS', 300),
      duration: __ENV.DURATION || '1m',
    },
  },
  summaryTrendStats: TREND_STATS,
  thresholds: {
    'http_reqs{name:callback}': ['count>0'],
    'http_req_failed{name:callback}': ['rate<0.01'],
    'http_req_duration{name:callback}': [`p(99)<${positiveInt('P99_MS', 40)}`],
    checks: ['rate>0.99'],
    [`checks{check:${PAID_ONCE}}`]: ['rate==1'],
  },
};

export function setup() {
  const outTradeNo = `k6d${Date.now().toString(36)}`;
  registerOrderFor(outTradeNo);
  return { outTradeNo, first: freshSigningInputs() };
}

/** @type {{ window: number, callback: import('./lib/callback.js').Callback } | undefined} */
let signed;

/** @param {{ outTradeNo: string, first: import('./lib/callback.js').SigningInputs }} data */
export default async function (data) {
  // Every VU derives the signing time from the same clock window, so within a window all send the same bytes.
  const window = Math.floor((Date.now() / 1000 - data.first.signedAt) / RESIGN_EVERY_SECONDS);
  if (!signed || signed.window !== window) {
    const signedAt = data.first.signedAt + window * RESIGN_EVERY_SECONDS;
    signed = { window, callback: await signedCallback(data.outTradeNo, { ...data.first, signedAt }) };
  }
  const res = send(signed.callback);
  if (res.status === 503) {
    shed.add(1);
  }
  check(res, { 'acknowledged or shed': (r) => r.status === 503 || acknowledged(r) });
}

/** @param {{ outTradeNo: string }} data */
export function teardown(data) {
  const status = awaitPaid(data.outTradeNo, 10);
  const transitions = paidTransitions(data.outTradeNo);
  check(transitions, { [PAID_ONCE]: (n) => status === 'PAID' && n === 1 });
  if (status !== 'PAID' || transitions !== 1) {
    fail(`order ${data.outTradeNo} is ${status} with ${transitions} order.paid transitions, expected PAID and exactly one`);
  }
}

export const handleSummary = summaryWriter('duplicate-storm');
