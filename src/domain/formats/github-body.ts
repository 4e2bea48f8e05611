import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';

/** A signing secret shorter than this is guessable offline from one signed delivery. */
export const SIGNING_SECRET_MIN_CHARS = 16;
/** GitHub's own form takes long secrets; this bounds what we store and hash per request. */
export const SIGNING_SECRET_MAX_CHARS = 256;

/**
 * Reads a GitHub webhook body: `application/json`, or the form encoding
 * (`application/x-www-form-urlencoded`, the JSON in a `payload` field) that a
 * webhook configured with that content type sends. Pure: the raw text in, the
 * parsed JSON out. The signature is over the raw body, so check it first.
 */
export function parseGithubBody(raw: string, contentType: string | undefined): unknown {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  let json: string;
  if (type === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(raw).get('payload');
    if (payload === null) throw new AppError('invalid-payload', 'a form-encoded GitHub body needs a payload field');
    json = payload;
  } else if (type === '' || type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type)) {
    json = raw;
  } else {
    throw new AppError('unsupported-content-type', `GitHub bodies are application/json or application/x-www-form-urlencoded, not ${type}`);
  }
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw new AppError('malformed-json', 'the GitHub payload is not valid JSON');
  }
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'mismatch' };

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * Checks GitHub's `X-Hub-Signature-256` (`sha256=` and the hex HMAC-SHA256 of
 * the raw body under the channel's signing secret). The comparison is
 * constant-time over the 32 digest bytes; the header's shape is checked first,
 * which reveals nothing about the secret.
 */
export function verifyGithubSignature(rawBody: string | Uint8Array, header: string | undefined, secret: string): SignatureCheck {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
  const m = SIGNATURE.exec(header.trim());
  if (!m) return { ok: false, reason: 'malformed' };
  const given = Buffer.from(m[1]!, 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected) ? { ok: true } : { ok: false, reason: 'mismatch' };
}

/** The header value GitHub would send for `rawBody` under `secret` (for tests and for senders' docs). */
export const githubSignature = (rawBody: string | Uint8Array, secret: string) =>
  `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
