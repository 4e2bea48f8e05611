import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Clock } from '../../../lib/clock.js';
import { appSecret, UNSUBSCRIBE_SECRET_NAME, type AppSecretRows } from '../app-secrets.js';

const INFO = 'alertbridge oidc state v1';
/** From the sign-in button to the provider's redirect back: long enough to type a password and a second factor. */
export const OIDC_STATE_TTL_MS = 10 * 60_000;

/**
 * A sign-in's transient values (state, nonce, PKCE verifier, where to go after) carried in a short-lived
 * cookie, sealed with AES-256-GCM under a key derived from an app secret: every node reads it alike
 * (the secret is in the database), the browser can neither read nor change it, and nothing is stored.
 */
export class SealedState {
  private readonly key: Buffer;

  constructor(secrets: AppSecretRows, private readonly clock: Clock) {
    this.key = Buffer.from(hkdfSync('sha256', appSecret(secrets, clock, UNSUBSCRIBE_SECRET_NAME), 'oidc-state', INFO, 32));
  }

  seal(payload: Record<string, unknown>): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ e: this.clock.now() + OIDC_STATE_TTL_MS, p: payload }), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The payload, or undefined when the seal is wrong, changed or expired. */
  open(sealed: string | undefined): Record<string, unknown> | undefined {
    if (!sealed || !/^[A-Za-z0-9_-]{40,4000}$/.test(sealed)) return undefined;
    const raw = Buffer.from(sealed, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const out = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as { e: number; p: Record<string, unknown> };
      return out.e > this.clock.now() ? out.p : undefined;
    } catch {
      return undefined;
    }
  }
}
