import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import { AppError } from './errors.js';

/** How long a finished answer is replayed (spec: 24 hours). */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
const IDEMPOTENCY_WINDOW_MS = IDEMPOTENCY_WINDOW_HOURS * 60 * 60 * 1000;
/** An Idempotency-Key is 1 to this many printable ASCII characters, not starting with a space. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;
const KEY_RE = new RegExp(`^[\\x21-\\x7e][\\x20-\\x7e]{0,${IDEMPOTENCY_KEY_MAX_CHARS - 1}}$`);

export interface StoredAnswer {
  status: number;
  body: unknown;
}

/**
 * Idempotency-Key handling for the webhook, scoped per channel (the webhook
 * token's channel). In-flight keys live in memory (one process), finished
 * answers in SQLite, written in the same transaction as the alert. Only
 * successful answers are stored: a rejected request may be corrected and
 * retried under the same key, as with Stripe.
 */
export class Idempotency {
  private readonly inFlight = new Map<string, string>();
  private readonly find: Database.Statement;
  private readonly insert: Database.Statement;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly clock: Clock,
  ) {
    this.find = sqlite.prepare(
      'SELECT request_hash AS requestHash, status, response_json AS responseJson, created_at AS createdAt FROM idempotency_keys WHERE channel_id = ? AND key = ?',
    );
    this.insert = sqlite.prepare(
      `INSERT INTO idempotency_keys (channel_id, key, request_hash, status, response_json, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel_id, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
         response_json = excluded.response_json, created_at = excluded.created_at`,
    );
  }

  static validateKey(key: string): void {
    if (!KEY_RE.test(key)) throw new AppError('invalid-idempotency-key', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters`);
  }

  static fingerprint(parts: (string | Uint8Array)[]): string {
    const h = createHash('sha256');
    for (const p of parts) h.update(p).update('\0');
    return h.digest('hex');
  }

  /**
   * Claims the key for this request. Returns a stored answer to replay, or a
   * release function to call when the request ends (success or failure).
   */
  begin(channelId: string, key: string, requestHash: string): { replay: StoredAnswer } | { release: () => void } {
    const id = `${channelId}\0${key}`;
    if (this.inFlight.has(id)) throw new AppError('idempotency-key-in-use');
    const row = this.find.get(channelId, key) as { requestHash: string; status: number; responseJson: string; createdAt: number } | undefined;
    if (row && this.clock.now() - row.createdAt < IDEMPOTENCY_WINDOW_MS) {
      if (row.requestHash !== requestHash) throw new AppError('idempotency-key-reused');
      return { replay: { status: row.status, body: JSON.parse(row.responseJson) } };
    }
    this.inFlight.set(id, requestHash);
    return { release: () => this.inFlight.delete(id) };
  }

  /** Inside the alert's transaction. */
  save(channelId: string, key: string, requestHash: string, answer: StoredAnswer): void {
    this.insert.run(channelId, key, requestHash, answer.status, JSON.stringify(answer.body), this.clock.now());
  }

  prune(): number {
    return this.sqlite.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(this.clock.now() - IDEMPOTENCY_WINDOW_MS).changes;
  }
}
