// Constant arrival rate of fresh, correctly signed payment callbacks.
//   k6 run -e CHANNEL=stripe -e STRIPE_WEBHOOK_SECRET=whsec_... [-e ADMIN_TOKEN=...] deploy/k6/steady.js
//   k6 run -e CHANNEL=wxpay -e WXPAY_MCHID=... -e WXPAY_SERIAL=... -e WXPAY_API_V3_KEY=... \
//          -e WXPAY_PRIVATE_KEY="$(cat key.pem)" deploy/k6/steady.js
import exec from 'k6/execution';
import { check } from 'k6';
import { acknowledged, registerOrder, send, signedCallback } from './lib/callback.js';

const RATE = Number(__ENV.RATE || 200);

export const options = {
  scenarios: {
    steady: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: __ENV.DURATION || '5m',
      preAllocatedVUs: Math.max(20, RATE / 5),
      maxVUs: RATE * 2,
    },
  },
  thresholds: {
    'http_req_failed{name:callback}': ['rate<0.01'],
    'http_req_duration{name:callback}': ['p(99)<40'],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  return { runId: `k6s${Date.now().toString(36)}` };
}

export default async function (data) {
  const outTradeNo = `${data.runId}-${exec.scenario.iterationInTest}`;
  registerOrder(outTradeNo);
  const res = send(await signedCallback(outTradeNo));
  check(res, { 'acknowledged in the provider format': acknowledged });
}
