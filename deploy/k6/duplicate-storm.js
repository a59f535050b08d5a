// Many VUs pushing the byte-identical signed callback at once, as a provider retrying through several
// gateways would: every answer is success (or busy), and the order is paid exactly once.
//   Same environment as steady.js; ADMIN_TOKEN lets setup register the order and teardown check it.
// Runs inside the providers' 5-minute timestamp tolerance, since the one signature is reused throughout.
import http from 'k6/http';
import { check, fail, sleep } from 'k6';
import { Counter } from 'k6/metrics';
import { BASE_URL, acknowledged, fixedSigningInputs, registerOrder, send, signedCallback } from './lib/callback.js';

const shed = new Counter('callbacks_shed');
http.setResponseCallback(http.expectedStatuses(200, 201, 409, 503));

export const options = {
  scenarios: {
    storm: {
      executor: 'constant-vus',
      vus: Number(__ENV.VUS || 300),
      duration: __ENV.DURATION || '1m',
    },
  },
  thresholds: {
    'http_req_failed{name:callback}': ['rate<0.01'],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  const outTradeNo = `k6d${Date.now().toString(36)}`;
  registerOrder(outTradeNo);
  return { outTradeNo, fixed: fixedSigningInputs() };
}

let callback;

export default async function (data) {
  // Deterministic inputs (RSA PKCS#1 v1.5 and AES-GCM with a fixed IV) give every VU the same bytes.
  if (!callback) {
    callback = await signedCallback(data.outTradeNo, data.fixed);
  }
  const res = send(callback);
  if (res.status === 503) {
    shed.add(1);
  }
  check(res, { 'acknowledged or shed': (r) => r.status === 503 || acknowledged(r) });
}

export function teardown(data) {
  const token = __ENV.ADMIN_TOKEN;
  if (!token) {
    return;
  }
  // The transition runs on a worker after the acknowledgement; give it a moment.
  let order;
  for (let attempt = 0; attempt < 10; attempt++) {
    const res = http.get(`${BASE_URL}/internal/orders/${data.outTradeNo}?merchantId=${__ENV.MERCHANT_ID || 'default'}`,
      { headers: { Authorization: `Bearer ${token}` }, tags: { name: 'verify' } });
    order = res.status === 200 ? res.json() : undefined;
    if (order && order.status === 'PAID') {
      break;
    }
    sleep(1);
  }
  if (!order || order.status !== 'PAID') {
    fail(`order ${data.outTradeNo} is ${order ? order.status : 'missing'}, expected PAID once`);
  }
}
