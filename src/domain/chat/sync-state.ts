import { backoffDelay, type RetryPolicy } from '../../lib/backoff.js';
import { compareSnowflakes, maxSnowflake } from './text.js';

/** A live message of one channel, from receipt until its write settled. */
export interface LiveEntry {
  id: string;
  state: 'pending' | 'stored' | 'failed';
}

/**
 * When may `synced_until` (the point up to which a channel's history is known
 * complete) move? Pure bookkeeping, no I/O, one instance per connected channel.
 *
 * - A backfill page moves it to the page's newest message, in the page's own
 *   transaction (pages are contiguous from the mark).
 * - A live message moves it only when the live stream is known gap-free: a
 *   backfill pass that STARTED after the last gap (gateway reconnect/resume or
 *   a failed write) has completed, no pass is running, and every live message
 *   received before it has been stored. Messages that arrive during a pass are
 *   stored but only counted once the pass is over.
 *
 * Why that is enough: after such a pass ends with mark M, a message newer than
 * M either was created after the pass's last history request, and then the
 * unbroken gateway session delivered it (it is in the live queue), or it would
 * have been in that request's answer. Live messages are queued in gateway
 * order (Discord's order within a channel), so the stored prefix of the queue
 * is gap-free.
 */
export class ChannelSyncState {
  /** Mirror of `discord_links.synced_until` (what is committed). */
  mark: string | null;
  backfilling = false;
  /** Another pass is due (a gap happened, or one was asked for during a pass). */
  passRequested = true;
  /** Failed passes in a row (the retry backoff's attempt number) and when the next may run. */
  failures = 0;
  retryAt = 0;

  private live = false;
  private epoch = 0;
  private queue: LiveEntry[] = [];
  private head = 0;
  /** Newest message of the stored, gap-free prefix of the live queue. */
  private candidate: string | null = null;

  /** `random` spreads the retry delays (equal jitter, see backoffDelay); injectable for tests. */
  constructor(
    mark: string | null,
    private readonly random: () => number = Math.random,
  ) {
    this.mark = mark;
  }

  /** True when the live stream is known gap-free since the last completed pass. */
  get isLive(): boolean {
    return this.live;
  }

  /** Live messages received and not settled yet. */
  get pendingLive(): number {
    let n = 0;
    for (let i = this.head; i < this.queue.length; i++) if (this.queue[i]!.state === 'pending') n++;
    return n;
  }

  /** The stream may have missed messages (reconnect, resume, a failed write): a new pass must complete first. */
  gap(): void {
    this.live = false;
    this.epoch++;
    this.passRequested = true;
  }

  liveReceived(id: string): LiveEntry {
    const entry: LiveEntry = { id, state: 'pending' };
    this.queue.push(entry);
    return entry;
  }

  /** Records the outcome of a live write; returns the mark it allows (or null). */
  liveSettled(entry: LiveEntry, stored: boolean): string | null {
    entry.state = stored ? 'stored' : 'failed';
    if (!stored) this.gap();
    while (this.head < this.queue.length && this.queue[this.head]!.state !== 'pending') {
      const e = this.queue[this.head++]!;
      if (e.state === 'stored') this.candidate = maxSnowflake(this.candidate, e.id);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return this.target();
  }

  /** Starts a pass; returns the token endPass needs. */
  beginPass(): number {
    this.backfilling = true;
    this.passRequested = false;
    return this.epoch;
  }

  /** Ends a pass; a completed pass with no gap since it began makes the stream live. Returns the mark now allowed. */
  endPass(token: number, completed: boolean, now: number, retry: RetryPolicy): string | null {
    this.backfilling = false;
    if (completed) {
      this.failures = 0;
      this.retryAt = 0;
      if (token === this.epoch) this.live = true;
    } else {
      this.failures++;
      this.retryAt = now + backoffDelay(retry, this.failures, this.random);
      this.passRequested = true;
    }
    return this.target();
  }

  /** The mark the live stream allows now, if it is ahead of the committed one. */
  target(): string | null {
    if (!this.live || this.backfilling || this.candidate === null) return null;
    return this.mark === null || compareSnowflakes(this.candidate, this.mark) > 0 ? this.candidate : null;
  }

  markWritten(id: string): void {
    this.mark = maxSnowflake(this.mark, id);
  }
}
