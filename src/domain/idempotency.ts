import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import type { WebhookAlertWrites } from './alert-store.js';
import { AppError } from './errors.js';

/** How long a finished answer is replayed (spec: 24 hours). */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
const IDEMPOTENCY_WINDOW_MS = IDEMPOTENCY_WINDOW_HOURS * 60 * 60 * 1000;
/** An Idempotency-Key is 1 to this many printable ASCII characters, not starting with a space. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;
/**
 * GitHub redelivers for 3 days, so its delivery ids are kept 7 (issue 14).
 * They live in the same per-channel table under this prefix, which the prune
 * spares until the long window has passed.
 */
export const LONG_KEY_PREFIX = 'github-delivery:';
export const LONG_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const KEY_RE = new RegExp(`^[\\x21-\\x7e][\\x20-\\x7e]{0,${IDEMPOTENCY_KEY_MAX_CHARS - 1}}$`);

/** A request's hold on an Idempotency-Key while it runs. */
export interface IdempotencyClaim {
  release(): Promise<void> | void;
}

/**
 * Who holds which key right now. A key held by a running request is refused to
 * the next with `idempotency-key-in-use` (409) at once, never waited for.
 */
export interface IdempotencyClaims {
  /** Claims (channel, key) or throws `idempotency-key-in-use`. */
  claim(channelId: string, key: string): Promise<IdempotencyClaim>;
}

/**
 * The claims of one process (SQLite: one process serves the file). The check and
 * the claim happen in one synchronous step, so no second request slips between.
 */
export class InProcessClaims implements IdempotencyClaims {
  private readonly inFlight = new Set<string>();

  async claim(channelId: string, key: string): Promise<IdempotencyClaim> {
    const id = `${channelId}\0${key}`;
    if (this.inFlight.has(id)) throw new AppError('idempotency-key-in-use');
    this.inFlight.add(id);
    return { release: () => void this.inFlight.delete(id) };
  }
}

/**
 * Idempotency-Key handling for the webhook, scoped per channel (the webhook
 * token's channel). In-flight keys are held by `claims` (in this process on
 * SQLite; cluster-wide on PostgreSQL: src/db/pg/alert-store/idempotency-claims.ts),
 * finished answers in the alert store, written in the same unit as the alert.
 * Only successful answers are stored: a rejected request may be corrected and
 * retried under the same key, as with Stripe.
 */
export class Idempotency {
  constructor(
    private readonly store: Pick<WebhookAlertWrites, 'idempotentAnswer' | 'pruneIdempotentAnswers'>,
    private readonly clock: Clock,
    private readonly claims: IdempotencyClaims = new InProcessClaims(),
  ) {}

  static validateKey(key: string): void {
    if (!KEY_RE.test(key)) throw new AppError('invalid-idempotency-key', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters`);
  }

  static fingerprint(parts: (string | Uint8Array)[]): string {
    const h = createHash('sha256');
    for (const p of parts) h.update(p).update('\0');
    return h.digest('hex');
  }

  /**
   * Claims the key for this request. Returns the stored answer's JSON to replay, or a
   * release function to call when the request ends (success or failure).
   */
  async begin(
    channelId: string,
    key: string,
    requestHash: string,
    windowMs = IDEMPOTENCY_WINDOW_MS,
  ): Promise<{ replayJson: string } | { release: () => Promise<void> }> {
    // Claimed before the lookup, so a second request with the key cannot slip in meanwhile.
    const claim = await this.claims.claim(channelId, key);
    const release = async () => {
      await claim.release();
    };
    try {
      const stored = await this.store.idempotentAnswer(channelId, key);
      if (stored && this.clock.now() - stored.createdAt < windowMs) {
        if (stored.requestHash !== requestHash) throw new AppError('idempotency-key-reused');
        await release();
        return { replayJson: stored.json };
      }
    } catch (err) {
      await release();
      throw err;
    }
    return { release };
  }

  prune(): Promise<number> {
    const now = this.clock.now();
    return this.store.pruneIdempotentAnswers(now - IDEMPOTENCY_WINDOW_MS, { prefix: LONG_KEY_PREFIX, before: now - LONG_WINDOW_MS });
  }
}
