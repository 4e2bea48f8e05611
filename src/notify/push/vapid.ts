import { createECDH } from 'node:crypto';
import { z } from 'zod';
import type { AppSecretRows } from '../../domain/auth/app-secrets.js';
import type { Clock } from '../../lib/clock.js';

/** The app_secrets row holding both VAPID keys, as one value so two nodes starting at once agree on one pair. */
export const VAPID_SECRET_NAME = 'vapid-keys';

const stored = z.object({ publicKey: z.string().min(80).max(100), privateKey: z.string().min(40).max(50) });

export interface VapidKeys {
  /** base64url of the uncompressed P-256 point: the page's applicationServerKey. */
  publicKey: string;
  /** Signs the VAPID JWT. Never logged, never sent. */
  privateKey: string;
}

/**
 * The server's VAPID key pair (RFC 8292): generated on first use and kept in
 * the database, so every process on the same data (a second node, a restart)
 * signs alike and existing browser subscriptions stay valid.
 */
export function loadVapidKeys(rows: AppSecretRows, clock: Clock): VapidKeys {
  // A pair is made only when none is stored; two nodes making one at once keep the first inserted.
  if (rows.get(VAPID_SECRET_NAME) === undefined) rows.insertIfAbsent(VAPID_SECRET_NAME, newVapidKeysValue(), clock.now());
  const value = rows.get(VAPID_SECRET_NAME);
  if (value === undefined) throw new Error('the VAPID keys vanished from app_secrets');
  const parsed = stored.safeParse(JSON.parse(value));
  // The message never includes the value: it holds the private key.
  if (!parsed.success) throw new Error(`the stored VAPID keys (app_secrets "${VAPID_SECRET_NAME}") are malformed`);
  return parsed.data;
}

/**
 * A fresh P-256 key pair as the app_secrets value `loadVapidKeys` reads: the uncompressed public
 * point (65 bytes) and the private scalar (32 bytes), base64url, as web-push's generateVAPIDKeys
 * makes them (leading zero bytes kept), without loading web-push at start.
 */
export function newVapidKeysValue(): string {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const pad = (b: Buffer, n: number) => (b.length < n ? Buffer.concat([Buffer.alloc(n - b.length), b]) : b);
  return JSON.stringify({ publicKey: pad(ecdh.getPublicKey(), 65).toString('base64url'), privateKey: pad(ecdh.getPrivateKey(), 32).toString('base64url') });
}

/**
 * The JWT's `sub`: push services contact the operator through it. PUBLIC_URL
 * when it is https (and not localhost, which push services refuse), else a
 * mailto: of MAIL_FROM's address.
 */
export function vapidSubject(publicUrl: string, mailFrom: string): string {
  try {
    const u = new URL(publicUrl);
    if (u.protocol === 'https:' && u.hostname !== 'localhost') return u.origin;
  } catch {
    // fall through
  }
  const address = /<([^<>@\s]+@[^<>\s]+)>/.exec(mailFrom)?.[1] ?? (/^[^<>@\s]+@[^<>\s]+$/.test(mailFrom.trim()) ? mailFrom.trim() : 'alertbridge@localhost');
  return `mailto:${address}`;
}
