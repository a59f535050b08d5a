// The order service's and the operator's side of a run, through ADMIN_URL with ADMIN_TOKEN.
import http from 'k6/http';
import { check, sleep } from 'k6';
import { ADMIN_TOKEN, MERCHANT, adminUrl } from './config.js';

// A token without ADMIN_URL stops the run at start rather than failing every iteration.
if (ADMIN_TOKEN) {
  adminUrl();
}

function headers() {
  return { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN_TOKEN}` };
}

/**
 * Registers the order a callback will pay, so the callback runs the whole transition (PENDING -> PAID) instead of
 * retrying against an unknown order. Without ADMIN_TOKEN nothing is registered and only ingest is measured.
 * @param {string} outTradeNo
 * @param {string} amount
 * @param {string} currency
 */
export function registerOrder(outTradeNo, amount, currency) {
  if (!ADMIN_TOKEN) {
    return;
  }
  const res = http.post(`${adminUrl()}/internal/orders`,
    JSON.stringify({ merchantId: MERCHANT, outTradeNo, amount, currency }),
    { headers: headers(), tags: { name: 'register' } });
  check(res, { 'order registered': (r) => r.status === 201 || r.status === 409 });
}

/**
 * @param {string} outTradeNo
 * @returns {string} the order's status, or 'missing'
 */
export function orderStatus(outTradeNo) {
  const res = http.get(`${adminUrl()}/internal/orders/${encodeURIComponent(outTradeNo)}?merchantId=${encodeURIComponent(MERCHANT)}`,
    { headers: headers(), tags: { name: 'verify' } });
  const status = res.status === 200 ? res.json('status') : undefined;
  return typeof status === 'string' ? status : 'missing';
}

/**
 * How many payments produced an `order.paid` event for the order. Each event has one outbox row per destination,
 * all with the same source (the callback row), so distinct sources count the transitions.
 * @param {string} outTradeNo
 */
export function paidTransitions(outTradeNo) {
  const res = http.get(`${adminUrl()}/admin/outbox?outTradeNo=${encodeURIComponent(outTradeNo)}&merchantId=${encodeURIComponent(MERCHANT)}`,
    { headers: headers(), tags: { name: 'verify' } });
  if (res.status !== 200) {
    throw new Error(`GET /admin/outbox answered ${res.status}`);
  }
  const events = /** @type {{type: string, source: string}[]} */ (res.json());
  return new Set(events.filter((event) => event.type === 'order.paid').map((event) => event.source)).size;
}

/**
 * Waits for the worker's transition, which runs after the callback was acknowledged.
 * @param {string} outTradeNo
 * @param {number} seconds
 */
export function awaitPaid(outTradeNo, seconds) {
  let status = orderStatus(outTradeNo);
  for (let waited = 0; status !== 'PAID' && waited < seconds; waited++) {
    sleep(1);
    status = orderStatus(outTradeNo);
  }
  return status;
}
