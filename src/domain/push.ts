import net from 'node:net';
import { z } from 'zod';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import { refusedAddressReason } from '../lib/ssrf.js';
import { AppError, type ValidationIssue } from './errors.js';

/** Devices (browser profiles) one user may subscribe; an eleventh is refused until one is removed. */
export const MAX_PUSH_SUBSCRIPTIONS_PER_USER = 10;
/** Real push-service URLs are 150–300 characters. */
export const MAX_PUSH_ENDPOINT_LENGTH = 1024;

/** A subscription as the settings page lists it: never the keys. */
export interface PushDevice {
  id: string;
  device: string;
  createdAt: number;
  lastSuccessAt: number | null;
  lastError: string | null;
}

export interface NewPushSubscription {
  id: string;
  userId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  device: string;
  createdAt: number;
}

/** The push_subscriptions rows (src/db/push-rows.ts on SQLite, src/db/pg/push-rows.ts on PostgreSQL). */
export interface PushSubscriptionRows {
  /**
   * One transaction: an endpoint already stored (the same browser subscribing
   * again, perhaps for another user) is replaced; otherwise a new row, unless
   * the user already has `max`.
   */
  upsert(row: NewPushSubscription, max: number): Promise<{ id: string; created: boolean } | 'limit'>;
  list(userId: string): Promise<PushDevice[]>;
  remove(userId: string, id: string): Promise<boolean>;
  removeEndpoint(userId: string, endpoint: string): Promise<boolean>;
}

const b64url = (bytes: number, what: string) =>
  z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} must be base64url`)
    .refine((v) => Buffer.from(v, 'base64url').length === bytes, `${what} must be ${bytes} bytes`);

/** What PushSubscription.toJSON() gives (expirationTime ignored). */
export const pushSubscriptionInput = z.object({
  endpoint: z.string().max(MAX_PUSH_ENDPOINT_LENGTH),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // An uncompressed P-256 point (0x04 ‖ x ‖ y) and a 16-byte secret (RFC 8291).
    p256dh: b64url(65, 'keys.p256dh').refine((v) => Buffer.from(v, 'base64url')[0] === 4, 'keys.p256dh must be an uncompressed P-256 key'),
    auth: b64url(16, 'keys.auth'),
  }),
});

/**
 * The address half of the push SSRF guard, checked when a browser subscribes:
 * https only, no credentials, and no literal private or loopback address
 * (names are resolved and checked again on every send, src/notify/push/transport.ts).
 * null = acceptable, else why not.
 */
export function refusedEndpointReason(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'endpoint is not a URL';
  }
  if (url.protocol !== 'https:') return 'endpoint must be https';
  if (url.username || url.password) return 'endpoint must not carry credentials';
  if (url.hash) return 'endpoint must not have a fragment';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!allowPrivate) {
    if (net.isIP(host) !== 0) {
      const reason = refusedAddressReason(host);
      if (reason) return `endpoint address is ${reason}`;
    } else if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
      return 'endpoint host must be a public name';
    }
  }
  return null;
}

/** "Firefox on Android" from a User-Agent; good enough to tell one's devices apart. */
export function deviceLabel(userAgent: string | undefined): string {
  const ua = (userAgent ?? '').slice(0, 512);
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\//.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Chrome\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : 'Browser';
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad|iPod/.test(ua)
      ? 'iOS'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(ua)
          ? 'macOS'
          : /CrOS/.test(ua)
            ? 'ChromeOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : 'unknown system';
  return `${browser} on ${os}`;
}

function invalid(issues: ValidationIssue[]): AppError {
  return new AppError('invalid-body', issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), { details: issues });
}

/** Subscribing, listing and removing a user's Web Push devices (the dashboard's notification settings). */
export class PushSubscriptions {
  constructor(
    private readonly rows: PushSubscriptionRows,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    /** PUSH_ALLOW_PRIVATE: tests point subscriptions at a loopback push service. */
    private readonly allowPrivate: boolean,
  ) {}

  async subscribe(userId: string, body: unknown, userAgent: string | undefined): Promise<{ id: string; device: string; created: boolean }> {
    const parsed = pushSubscriptionInput.safeParse(body);
    if (!parsed.success) {
      throw invalid(parsed.error.issues.map((i) => ({ code: i.code, message: i.message, path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)) })));
    }
    const { endpoint, keys } = parsed.data;
    const refused = refusedEndpointReason(endpoint, this.allowPrivate);
    if (refused) throw invalid([{ code: 'invalid_endpoint', message: refused, path: ['endpoint'] }]);
    const device = deviceLabel(userAgent);
    const row = { id: this.ids.next('psub'), userId, endpoint, p256dh: keys.p256dh, auth: keys.auth, device, createdAt: this.clock.now() };
    const r = await this.rows.upsert(row, MAX_PUSH_SUBSCRIPTIONS_PER_USER);
    if (r === 'limit') {
      throw new AppError('invalid-body', `At most ${MAX_PUSH_SUBSCRIPTIONS_PER_USER} devices get push notifications; remove one first`, {
        details: [{ code: 'too_many_subscriptions', message: `at most ${MAX_PUSH_SUBSCRIPTIONS_PER_USER}`, path: [] }],
      });
    }
    return { id: r.id, device, created: r.created };
  }

  list(userId: string): Promise<PushDevice[]> {
    return this.rows.list(userId);
  }

  remove(userId: string, id: string): Promise<boolean> {
    return this.rows.remove(userId, id);
  }

  async removeEndpoint(userId: string, endpoint: unknown): Promise<boolean> {
    if (typeof endpoint !== 'string' || endpoint.length > MAX_PUSH_ENDPOINT_LENGTH) return false;
    return this.rows.removeEndpoint(userId, endpoint);
  }
}
