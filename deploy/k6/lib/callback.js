// One payment callback per trade, built for the channel chosen by CHANNEL (stripe | wxpay).
import http from 'k6/http';
import { check } from 'k6';
import {
  importApiV3Key, importWxpayKey, randomString, stripeSignature, wxpayHeaders, wxpayResource,
} from './sign.js';

export const BASE_URL = (__ENV.BASE_URL || 'http://localhost:8080').replace(/\/$/, '');
export const CHANNEL = __ENV.CHANNEL || 'stripe';
const MERCHANT = __ENV.MERCHANT_ID || 'default';

function required(name) {
  const value = __ENV[name];
  if (!value) {
    throw new Error(`set ${name}`);
  }
  return value;
}

const CURRENCY = { stripe: 'USD', wxpay: 'CNY' }[CHANNEL];
if (!CURRENCY) {
  throw new Error(`CHANNEL must be stripe or wxpay, not ${CHANNEL}`);
}
// One minor unit of the order's currency; the registered order carries the same amount.
const AMOUNT = '0.01';

export function callbackUrl() {
  const merchant = MERCHANT === 'default' ? '' : `/${MERCHANT}`;
  return `${BASE_URL}/pay/callback/${CHANNEL}${merchant}`;
}

// With ADMIN_TOKEN the order is registered first, so the callback runs the whole transition
// (PENDING -> PAID) instead of retrying against an unknown order.
export function registerOrder(outTradeNo) {
  const token = __ENV.ADMIN_TOKEN;
  if (!token) {
    return;
  }
  const res = http.post(`${BASE_URL}/internal/orders`,
    JSON.stringify({ merchantId: MERCHANT, outTradeNo, amount: AMOUNT, currency: CURRENCY }),
    { headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, tags: { name: 'register' } });
  check(res, { 'order registered': (r) => r.status === 201 || r.status === 409 });
}

let wxpayKeys;

async function wxpayCallback(outTradeNo, timestamp, headerNonce, resourceNonce) {
  if (!wxpayKeys) {
    wxpayKeys = {
      rsa: await importWxpayKey(required('WXPAY_PRIVATE_KEY')),
      aes: await importApiV3Key(required('WXPAY_API_V3_KEY')),
    };
  }
  const plaintext = JSON.stringify({
    mchid: required('WXPAY_MCHID'),
    appid: __ENV.WXPAY_APPID || 'wxk6loadtest',
    out_trade_no: outTradeNo,
    transaction_id: `42${outTradeNo}`,
    trade_type: 'NATIVE',
    trade_state: 'SUCCESS',
    trade_state_desc: '支付成功',
    bank_type: 'OTHERS',
    success_time: new Date(timestamp * 1000).toISOString().replace(/\.\d+Z$/, '+00:00'),
    payer: { openid: 'k6-load-test' },
    amount: { total: 1, payer_total: 1, currency: 'CNY', payer_currency: 'CNY' },
  });
  const body = JSON.stringify({
    id: `EV-${outTradeNo}`,
    create_time: new Date(timestamp * 1000).toISOString(),
    resource_type: 'encrypt-resource',
    event_type: 'TRANSACTION.SUCCESS',
    summary: '支付成功',
    resource: await wxpayResource(wxpayKeys.aes, plaintext, resourceNonce, 'transaction'),
  });
  const headers = await wxpayHeaders(wxpayKeys.rsa, required('WXPAY_SERIAL'), timestamp, headerNonce, body);
  return { body, headers };
}

function stripeCallback(outTradeNo, timestamp) {
  const body = JSON.stringify({
    id: `evt_${outTradeNo}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: timestamp,
    livemode: false,
    data: {
      object: {
        id: `pi_${outTradeNo}`,
        object: 'payment_intent',
        amount: 1,
        amount_received: 1,
        currency: 'usd',
        status: 'succeeded',
        metadata: { out_trade_no: outTradeNo },
      },
    },
  });
  const headers = {
    'Content-Type': 'application/json',
    'Stripe-Signature': stripeSignature(required('STRIPE_WEBHOOK_SECRET'), timestamp, body),
  };
  return { body, headers };
}

// `fixed` pins the timestamp and nonces so every VU builds byte-identical requests (duplicate storm).
export async function signedCallback(outTradeNo, fixed) {
  const timestamp = fixed ? fixed.timestamp : Math.floor(Date.now() / 1000);
  if (CHANNEL === 'wxpay') {
    return wxpayCallback(outTradeNo, timestamp,
      fixed ? fixed.headerNonce : randomString(32), fixed ? fixed.resourceNonce : randomString(12));
  }
  return stripeCallback(outTradeNo, timestamp);
}

export function fixedSigningInputs() {
  return { timestamp: Math.floor(Date.now() / 1000), headerNonce: randomString(32), resourceNonce: randomString(12) };
}

export function acknowledged(res) {
  if (res.status !== 200) {
    return false;
  }
  if (CHANNEL === 'wxpay') {
    return res.json('code') === 'SUCCESS';
  }
  return res.json('received') === true;
}

export function send(callback) {
  const res = http.post(callbackUrl(), callback.body, { headers: callback.headers, tags: { name: 'callback' } });
  return res;
}
