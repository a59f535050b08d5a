// One payment callback per trade, built for the channel chosen by CHANNEL (stripe | wxpay).
import http from 'k6/http';
import { BASE_URL, CHANNEL, MERCHANT, required } from './config.js';
import { registerOrder } from './admin.js';
import {
  importApiV3Key, importWxpayKey, randomString, stripeSignature, webCrypto, wxpayHeaders, wxpayResource,
} from './sign.js';

/** @typedef {{ body: string, headers: Record<string, string> }} Callback */
/**
 * What a provider keeps across its retries of one notification (the body, so its time and the resource nonce), and
 * what it changes on each delivery (the signature's time and the header nonce).
 * @typedef {{ bodyTime: number, resourceNonce: string, signedAt: number, headerNonce: string }} SigningInputs
 */

/** @param {string} channel */
function currencyOf(channel) {
  if (channel === 'stripe') {
    return 'USD';
  }
  if (channel === 'wxpay') {
    return 'CNY';
  }
  throw new Error(`CHANNEL must be stripe or wxpay, not ${channel}`);
}

const CURRENCY = currencyOf(CHANNEL);
if (CHANNEL === 'wxpay') {
  webCrypto();
}
// One minor unit of the order's currency; the registered order carries the same amount.
const AMOUNT = '0.01';

export function callbackUrl() {
  const merchant = MERCHANT === 'default' ? '' : `/${MERCHANT}`;
  return `${BASE_URL}/pay/callback/${CHANNEL}${merchant}`;
}

/** @param {string} outTradeNo */
export function registerOrderFor(outTradeNo) {
  registerOrder(outTradeNo, AMOUNT, CURRENCY);
}

/** @type {{ rsa: CryptoKey, aes: CryptoKey } | undefined} */
let wxpayKeys;

/**
 * @param {string} outTradeNo
 * @param {SigningInputs} inputs
 * @returns {Promise<Callback>}
 */
async function wxpayCallback(outTradeNo, inputs) {
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
    success_time: new Date(inputs.bodyTime * 1000).toISOString().replace(/\.\d+Z$/, '+00:00'),
    payer: { openid: 'k6-load-test' },
    amount: { total: 1, payer_total: 1, currency: 'CNY', payer_currency: 'CNY' },
  });
  const body = JSON.stringify({
    id: `EV-${outTradeNo}`,
    create_time: new Date(inputs.bodyTime * 1000).toISOString(),
    resource_type: 'encrypt-resource',
    event_type: 'TRANSACTION.SUCCESS',
    summary: '支付成功',
    resource: await wxpayResource(wxpayKeys.aes, plaintext, inputs.resourceNonce, 'transaction'),
  });
  const headers = await wxpayHeaders(wxpayKeys.rsa, required('WXPAY_SERIAL'), inputs.signedAt, inputs.headerNonce, body);
  return { body, headers };
}

/**
 * @param {string} outTradeNo
 * @param {SigningInputs} inputs
 * @returns {Callback}
 */
function stripeCallback(outTradeNo, inputs) {
  const body = JSON.stringify({
    id: `evt_${outTradeNo}`,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: inputs.bodyTime,
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
    'Stripe-Signature': stripeSignature(required('STRIPE_WEBHOOK_SECRET'), inputs.signedAt, body),
  };
  return { body, headers };
}

/** Fresh inputs: a first delivery, signed now. */
export function freshSigningInputs() {
  const now = Math.floor(Date.now() / 1000);
  return { bodyTime: now, resourceNonce: randomString(12), signedAt: now, headerNonce: randomString(32) };
}

/**
 * The same inputs give byte-identical requests (RSA PKCS#1 v1.5 and AES-GCM with a given IV are deterministic).
 * @param {string} outTradeNo
 * @param {SigningInputs} [inputs]
 * @returns {Promise<Callback>}
 */
export async function signedCallback(outTradeNo, inputs = freshSigningInputs()) {
  if (CHANNEL === 'wxpay') {
    return wxpayCallback(outTradeNo, inputs);
  }
  return stripeCallback(outTradeNo, inputs);
}

/** @param {import('k6/http').RefinedResponse<any>} res */
export function acknowledged(res) {
  if (res.status !== 200) {
    return false;
  }
  if (CHANNEL === 'wxpay') {
    return res.json('code') === 'SUCCESS';
  }
  return res.json('received') === true;
}

/** @param {Callback} callback */
export function send(callback) {
  return http.post(callbackUrl(), callback.body, { headers: callback.headers, tags: { name: 'callback' } });
}
