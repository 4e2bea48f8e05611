import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { digest } from './secrets.js';

/** A flash lives this long: the page a form redirects to reads it at once; a flash nobody read is dropped. */
export const FLASH_TTL_MS = 5 * 60_000;
/** The most a flash may hold once sealed (a notice, a token, an invitation link): no form needs more. */
export const MAX_FLASH_BYTES = 8 * 1024;
const INFO = 'alertbridge flash v1';

export interface FlashRow {
  id: string;
  sessionHash: string;
  sealed: string;
  expiresAt: number;
}

/** The flashes table (src/db/shared/flash-rows.ts), shared by every node. */
export interface FlashRows {
  insert(row: FlashRow): Promise<void>;
  /** Deletes the session's flash and returns it (one statement: of two concurrent reads, one gets it). */
  take(id: string, sessionHash: string): Promise<{ sealed: string; expiresAt: number } | undefined>;
  prune(now: number): Promise<number>;
}

/**
 * A key of its own per flash: HKDF-SHA256 of the session's cookie secret, salted with the flash's id.
 * The database holds only the secret's SHA-256, so a copy of it (or a backup) cannot open a flash.
 */
function keyOf(sessionSecret: string, id: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sessionSecret, id, INFO, 32));
}

/**
 * One-time results carried across a Post/Redirect/Get (a new API token, an invitation link, what was
 * done): sealed with AES-256-GCM under a key only the session's cookie can derive, stored server-side so
 * it works on any node, deleted when read and expired after five minutes. Knows no HTTP.
 */
export class Flashes {
  constructor(
    private readonly rows: FlashRows,
    private readonly clock: Clock,
  ) {}

  /** Stores `payload` for the session whose cookie secret this is; returns the flash's id (for the redirect's URL). */
  async put(sessionSecret: string, payload: unknown): Promise<string> {
    const id = randomBytes(16).toString('base64url');
    const sessionHash = digest(sessionSecret);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyOf(sessionSecret, id), iv);
    // Bound to its session: a row moved to another session fails to open.
    cipher.setAAD(Buffer.from(sessionHash));
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    if (sealed.length > MAX_FLASH_BYTES) throw new Error('a flash holds a short result, not a page');
    const now = this.clock.now();
    // Unread flashes of closed tabs go with the next write: the table stays as small as the last five minutes.
    await this.rows.prune(now);
    await this.rows.insert({ id, sessionHash, sealed, expiresAt: now + FLASH_TTL_MS });
    return id;
  }

  /** The flash, once: deleted by this read. Undefined when unknown, read already, expired, or another session's. */
  async take(sessionSecret: string, id: string): Promise<unknown> {
    if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return undefined;
    const sessionHash = digest(sessionSecret);
    const row = await this.rows.take(id, sessionHash);
    if (!row || row.expiresAt <= this.clock.now()) return undefined;
    const raw = Buffer.from(row.sealed, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionSecret, id), raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(sessionHash));
      decipher.setAuthTag(raw.subarray(12, 28));
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }
}
