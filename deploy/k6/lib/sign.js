// Signing exactly as the providers do, so the service's real verification path is under load.
// WeChat Pay needs RSA and AES-GCM from WebCrypto, the global `crypto` that k6 has since v1.0.0 (before that it was the
// k6/experimental/webcrypto module); Stripe's HMAC comes from k6/crypto, which every k6 has.
import { hmac } from 'k6/crypto';
import encoding from 'k6/encoding';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** @param {number} length */
export function randomString(length) {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)];
  }
  return out;
}

// The bodies carry non-ASCII text (WeChat's summary), and signatures cover the UTF-8 bytes on the wire.
/** @param {string} text */
export function utf8(text) {
  const bytes = [];
  for (const ch of text) {
    const cp = /** @type {number} */ (ch.codePointAt(0));
    if (cp < 0x80) {
      bytes.push(cp);
    } else if (cp < 0x800) {
      bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    } else {
      bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    }
  }
  return new Uint8Array(bytes).buffer;
}

/** @param {string} pem */
function pemBody(pem) {
  return encoding.b64decode(pem.replace(/-----[^-]+-----/g, '').replace(/\\n|\s/g, ''), 'std');
}

/**
 * Stripe-Signature: HMAC-SHA256 of `${t}.${body}` keyed with the whole whsec_ string.
 * @param {string} secret
 * @param {number} t
 * @param {string} body
 */
export function stripeSignature(secret, t, body) {
  return `t=${t},v1=${hmac('sha256', secret, `${t}.${body}`, 'hex')}`;
}

/**
 * WebCrypto, or a clear stop on a k6 older than 1.0.0 (which has no global `crypto`). Called at init by the WeChat Pay
 * scenarios, so an old k6 fails before any load is sent.
 */
export function webCrypto() {
  if (typeof crypto === 'undefined' || !crypto.subtle) {
    throw new Error('CHANNEL=wxpay signs with the global WebCrypto `crypto`, which k6 has only since v1.0.0;'
      + ' this k6 has none: upgrade k6 (see `k6 version`) or run CHANNEL=stripe');
  }
  return crypto.subtle;
}

/**
 * The merchant-side key pair's private half (PKCS#8 PEM) stands in for WeChat Pay's platform key;
 * the service must list its public half under the same serial.
 * @param {string} privateKeyPem
 */
export async function importWxpayKey(privateKeyPem) {
  return webCrypto().importKey('pkcs8', pemBody(privateKeyPem),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
}

/** @param {string} apiV3Key */
export async function importApiV3Key(apiV3Key) {
  return webCrypto().importKey('raw', utf8(apiV3Key), { name: 'AES-GCM' }, false, ['encrypt']);
}

/**
 * AEAD_AES_256_GCM as in the notice's `resource`: the IV is the nonce string's bytes and the
 * ciphertext field is ciphertext || tag, base64.
 * @param {CryptoKey} aesKey
 * @param {string} plaintext
 * @param {string} nonce
 * @param {string} associatedData
 */
export async function wxpayResource(aesKey, plaintext, nonce, associatedData) {
  const sealed = await webCrypto().encrypt(
    { name: 'AES-GCM', iv: utf8(nonce), additionalData: utf8(associatedData), tagLength: 128 },
    aesKey, utf8(plaintext));
  return {
    original_type: 'transaction',
    algorithm: 'AEAD_AES_256_GCM',
    ciphertext: encoding.b64encode(sealed, 'std'),
    associated_data: associatedData,
    nonce,
  };
}

/**
 * Wechatpay-* headers over `timestamp\nnonce\nbody\n`.
 * @param {CryptoKey} rsaKey
 * @param {string} serial
 * @param {number} timestamp
 * @param {string} nonce
 * @param {string} body
 */
export async function wxpayHeaders(rsaKey, serial, timestamp, nonce, body) {
  const signature = await webCrypto().sign('RSASSA-PKCS1-v1_5', rsaKey,
    utf8(`${timestamp}\n${nonce}\n${body}\n`));
  return {
    'Content-Type': 'application/json',
    'Wechatpay-Timestamp': String(timestamp),
    'Wechatpay-Nonce': nonce,
    'Wechatpay-Serial': serial,
    'Wechatpay-Signature': encoding.b64encode(signature, 'std'),
    'Wechatpay-Signature-Type': 'WECHATPAY2-SHA256-RSA2048',
  };
}
