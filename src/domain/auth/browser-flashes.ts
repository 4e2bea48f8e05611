import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { appSecret, UNSUBSCRIBE_SECRET_NAME, type AppSecretRows } from './app-secrets.js';
import { FLASH_TTL_MS, MAX_FLASH_BYTES } from './flashes.js';

const INFO = 'alertbridge browser flash v1';

/**
 * What a sessionless button did (unsubscribe, an e-mail's Acknowledge), carried across its
 * Post/Redirect/Get without a session or a stored row: sealed with AES-256-GCM under a key derived
 * from a server secret AND a random browser key that only the redirected browser holds (its
 * cookie). The URL alone opens nothing; the server key stops anyone who can plant a cookie from
 * writing a page in our name; the browser drops its key when the page is read, so a reload shows
 * nothing; five minutes at most. Knows no HTTP.
 */
export class BrowserFlashes {
  private readonly key: Buffer;

  constructor(secrets: AppSecretRows, private readonly clock: Clock) {
    // Its own key, derived from an existing app secret (the label keeps the two uses apart).
    this.key = Buffer.from(hkdfSync('sha256', appSecret(secrets, clock, UNSUBSCRIBE_SECRET_NAME), 'browser-flash', INFO, 32));
  }

  private keyOf(browserKey: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, browserKey, INFO, 32));
  }

  /** A fresh browser key (for the cookie) and the payload sealed under it (for the redirect's URL). */
  seal(payload: unknown): { browserKey: string; sealed: string } {
    const browserKey = randomBytes(32).toString('base64url');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyOf(browserKey), iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ e: this.clock.now() + FLASH_TTL_MS, p: payload }), 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    if (sealed.length > MAX_FLASH_BYTES) throw new Error('a flash holds a short result, not a page');
    return { browserKey, sealed };
  }

  /** The payload, or undefined when the key or the seal is wrong, changed, or expired. */
  open(browserKey: string, sealed: string): unknown {
    if (!/^[A-Za-z0-9_-]{43}$/.test(browserKey) || !/^[A-Za-z0-9_-]{40,11000}$/.test(sealed)) return undefined;
    const raw = Buffer.from(sealed, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.keyOf(browserKey), raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const out = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as { e: number; p: unknown };
      return out.e > this.clock.now() ? out.p : undefined;
    } catch {
      return undefined;
    }
  }
}
