// Environment shared by every scenario; see deploy/k6/README.md.

/** @param {string} url */
function trimSlash(url) {
  return url.replace(/\/$/, '');
}

// Where the providers' callbacks arrive: the ingress (or a port-forward of the service's port 8080).
export const BASE_URL = trimSlash(__ENV.BASE_URL || 'http://localhost:8080');
export const CHANNEL = __ENV.CHANNEL || 'stripe';
export const MERCHANT = __ENV.MERCHANT_ID || 'default';
export const ADMIN_TOKEN = __ENV.ADMIN_TOKEN || '';

/** @param {string} name */
export function required(name) {
  const value = __ENV[name];
  if (!value) {
    throw new Error(`set ${name}`);
  }
  return value;
}

// Order registration and the admin API live under /internal and /admin, which the ingress never routes: in a
// cluster they are reached through a port-forward of the service, never through BASE_URL.
export function adminUrl() {
  return trimSlash(required('ADMIN_URL'));
}

/**
 * A whole number from the environment: k6 rejects fractional VU counts and rates.
 * @param {string} name
 * @param {number} fallback
 */
export function positiveInt(name, fallback) {
  const raw = __ENV[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a whole number >= 1, not ${raw}`);
  }
  return value;
}
