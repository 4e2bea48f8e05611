import { createHash } from 'node:crypto';
import PQueue from 'p-queue';
import type { Logger } from '../../lib/logger.js';
import type { Clock } from '../../lib/clock.js';
import type { Actor } from '../alert-view.js';
import { AppError } from '../errors.js';
import type { MediaFetcher, MediaStore } from '../media.js';

/** A copy found (or a definite "no picture": a 404, not an image, too large) is reused this long. */
const FOUND_TTL_MS = 24 * 60 * 60 * 1000;
/** A failure that may pass (timeout, 5xx, refused connection) is retried after this long, not per alert. */
const RETRY_AFTER_MS = 10 * 60 * 1000;
const CACHE_MAX = 10_000;
/** Avatars are shown at 20 px (40 px on dense screens): 1 MiB is generous; Gravatar's 128 px picture is a few KB. */
export const AVATAR_MAX_BYTES = 1024 * 1024;
/** Gravatar's size parameter: twice the largest size the card shows, for sharp high-density screens. */
const LOOKUP_SIZE = 128;

export interface AvatarSink {
  /** Stores our copy's URL on the alert (only if the actor still has none); resolves after the write committed. */
  setAvatar(alertId: string, url: string): Promise<void>;
}

export interface AvatarMirrorDeps {
  /** Off: no avatar is ever downloaded (AVATAR_FETCH=0, and tests that must not reach the network). */
  enabled: boolean;
  /** The public avatar service (Gravatar-style, `<base>/<sha256 of the e-mail>`); empty turns look-ups off. */
  baseUrl: string;
  /** The SSRF-guarded downloader (its own timeout: an avatar may not hold a queue slot for long). */
  fetcher: MediaFetcher;
  media: MediaStore;
  clock: Clock;
  logger: Logger;
  sink: AvatarSink;
}

/**
 * Copies actors' pictures into the media store, so pages and e-mails show
 * them from our own host: under the dashboard's strict CSP, and without any
 * viewer's browser or mail client contacting a third party (as GitHub's
 * image proxy and Slack's do). The source is the sender's `avatarUrl`, else
 * the public avatar service's picture for the actor's e-mail.
 *
 * It runs after the webhook answered, on a small queue, through the
 * SSRF-guarded fetcher: it never delays or fails an alert, and the service
 * works with no network at all (the card then shows initials). Each source
 * is downloaded once per day at most (FOUND_TTL_MS): the file is
 * content-addressed, so one person's picture is stored once however many
 * alerts show it, and a changed picture reaches new alerts within a day.
 */
export class AvatarMirror {
  private readonly queue = new PQueue({ concurrency: 4 });
  private readonly cache = new Map<string, { url: string | null; until: number }>();
  private readonly inFlight = new Map<string, Promise<string | null>>();
  private stopped = false;

  constructor(private readonly deps: AvatarMirrorDeps) {}

  afterIngest(alertId: string, actor: Actor | null | undefined): void {
    if (this.stopped || !actor || !this.deps.enabled) return;
    const source = this.sourceOf(actor);
    if (!source) return;
    if (this.queue.size > 1000) return; // shed load rather than queue unboundedly
    void this.queue.add(async () => {
      const url = await this.copy(source);
      if (url && !this.stopped) await this.deps.sink.setAvatar(alertId, url);
    });
  }

  /** The sender's picture wins; the e-mail's public avatar otherwise (asking for a 404 when there is none). */
  private sourceOf(actor: Actor): string | null {
    if (actor.avatarUrl) return actor.avatarUrl;
    if (!actor.email || !this.deps.baseUrl) return null;
    const hash = createHash('sha256').update(actor.email.trim().toLowerCase()).digest('hex');
    return `${this.deps.baseUrl}/${hash}?s=${LOOKUP_SIZE}&d=404`;
  }

  /** Our URL of the source's copy, downloading it unless a recent answer is cached or a download is under way. */
  private copy(source: string): Promise<string | null> {
    const cached = this.cache.get(source);
    if (cached && this.deps.clock.now() < cached.until) return Promise.resolve(cached.url);
    let pending = this.inFlight.get(source);
    if (!pending) {
      pending = this.download(source).finally(() => this.inFlight.delete(source));
      this.inFlight.set(source, pending);
    }
    return pending;
  }

  private async download(source: string): Promise<string | null> {
    const batch = this.deps.media.batch();
    let url: string | null = null;
    let ttl = FOUND_TTL_MS;
    try {
      const stored = await this.deps.fetcher.fetchInto(source, batch, { declaredKind: 'image', label: 'avatar', maxBytes: AVATAR_MAX_BYTES });
      await batch.commit();
      url = stored.url;
    } catch (err) {
      await batch.rollback().catch(() => {});
      if (!isDefinite(err)) ttl = RETRY_AFTER_MS;
      // Debug only: the URL may carry a sender's secret in its query, and a missing picture is routine.
      this.deps.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'avatar copy failed');
    }
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(source, { url, until: this.deps.clock.now() + ttl });
    return url;
  }

  /** Resolves when every queued copy finished and its avatar write committed (tests await this, no sleeps). */
  async idle(): Promise<void> {
    await this.queue.onIdle();
  }

  stop(): void {
    this.stopped = true;
    this.queue.clear();
  }
}

/** Failures that asking again soon would not change: no picture (a 4xx), not an image, too large, a refused address or scheme. */
function isDefinite(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  if (err.code !== 'attachment-fetch-failed') return true; // type mismatch, unsupported format, too large
  return /answered 4\d\d|not allowed|address/.test(err.message);
}
