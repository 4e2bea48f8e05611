import { createHash } from 'node:crypto';
import PQueue from 'p-queue';
import { request } from 'undici';
import type { Logger } from '../../lib/logger.js';
import type { Clock } from '../../lib/clock.js';
import type { Actor } from '../alert-view.js';

const CACHE_TTL_MS = 24 * 60 * 60 * 1000;
const CACHE_MAX = 10_000;

export interface AvatarSink {
  /** Stores the found URL on the alert (only if the actor still has none); resolves after the write committed. */
  setAvatar(alertId: string, url: string): Promise<void>;
}

/**
 * Gravatar-style lookup by hashed e-mail (`<base>/<sha256>?d=404`: 404 means
 * no picture). Runs after the webhook answered, on a small queue with a
 * timeout and a cache, so it never delays or fails an alert, and the service
 * works with no network at all (lookups just fail quietly).
 */
export class AvatarLookup {
  private readonly queue = new PQueue({ concurrency: 4 });
  private readonly cache = new Map<string, { url: string | null; at: number }>();
  private stopped = false;

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly sink: AvatarSink,
  ) {}

  afterIngest(alertId: string, actor: Actor | null | undefined): void {
    if (!this.baseUrl || this.stopped || !actor?.email || actor.avatarUrl) return;
    if (this.queue.size > 1000) return; // shed load rather than queue unboundedly
    const email = actor.email;
    void this.queue.add(async () => {
      const url = await this.lookup(email);
      if (url && !this.stopped) await this.sink.setAvatar(alertId, url);
    });
  }

  async lookup(email: string): Promise<string | null> {
    const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
    const cached = this.cache.get(hash);
    if (cached && this.clock.now() - cached.at < CACHE_TTL_MS) return cached.url;
    let url: string | null = null;
    try {
      const res = await request(`${this.baseUrl}/${hash}?d=404&s=128`, {
        method: 'GET',
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.body.dump();
      if (res.statusCode === 200) url = `${this.baseUrl}/${hash}?s=128`;
      else if (res.statusCode !== 404) return null; // transient: do not cache
    } catch (err) {
      this.logger.debug({ err: (err as Error).message }, 'avatar lookup failed');
      return null;
    }
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, { url, at: this.clock.now() });
    return url;
  }

  /** Resolves when every queued lookup finished and its avatar write committed (tests await this, no sleeps). */
  async idle(): Promise<void> {
    await this.queue.onIdle();
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
  }
}
