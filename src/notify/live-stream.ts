import type { AlertEventType, AlertReads, ChangeEvent, ChangeLog } from '../domain/alert-store.js';
import type { ChangeBus } from '../domain/changes.js';
import { AppError } from '../domain/errors.js';
import type { ReadApi } from '../domain/read-api.js';
import type { Principal } from '../domain/tokens.js';

export interface LiveStreamOptions {
  /** Comment lines that keep proxies and load balancers from closing an idle stream. */
  heartbeatMs: number;
  /** The reconnection delay suggested to clients (SSE `retry:`). */
  retryMs: number;
  /** Safety net for changes written by another process (the admin CLI), whose bus event we never see. */
  pollIntervalMs: number;
  /** Change-log rows read per query. */
  batchSize: number;
  /** Open streams one token may hold (a reconnect loop must not pile up connections). */
  maxPerToken: number;
  /** Open streams in all. */
  maxTotal: number;
}

/** How long the change log is kept for Last-Event-ID resumes; older ones get `resync`. */
export const EVENT_RETENTION_DAYS = 7;

export const DEFAULT_LIVE_OPTIONS: LiveStreamOptions = { heartbeatMs: 15_000, retryMs: 3_000, pollIntervalMs: 2_000, batchSize: 200, maxPerToken: 10, maxTotal: 1_000 };

/** One SSE message. `id` is the alert_events id, so `Last-Event-ID` resumes exactly after it. */
export interface LiveEvent {
  /** `read.updated` is per user and not in the change log: it has no id, so it never moves a client's Last-Event-ID. */
  event: AlertEventType | 'resync' | 'shutdown' | 'read.updated';
  id?: string;
  data: string;
}

/** What the stream needs besides the change log: visibility, the alert rows, and whether a token still holds. */
/** Whether a stream's principal still holds (token not revoked, still a member; a session still live): asked again at every read. */
export type Authorized = () => boolean | Promise<boolean>;

export interface LiveStreamDeps {
  changes: ChangeLog;
  alerts: Pick<AlertReads, 'visibleChannelIds' | 'alert' | 'visibleChannels'>;
  bus: ChangeBus;
  readApi: Pick<ReadApi, 'render'>;
  /** The token is not revoked and its user is still a workspace member. */
  stillAuthorized(p: Principal): Promise<boolean>;
}

/** What the bus carries as `read-state` after a user's read state changed (committed): the channels it changed in. */
export interface ReadStateChange {
  userId: string;
  channelIds: string[];
}

/**
 * The live stream's engine, independent of HTTP: one bus listener and one poll
 * timer for all connections; each connection (LiveSubscription) reads the
 * change log (`alert_events`) after its own cursor and keeps what its user may
 * see. Visibility and the token are re-checked on every read, so a user
 * removed from a private channel stops receiving it at once and a user removed
 * from the workspace (or whose token is revoked) has the stream closed; the
 * poll re-checks the token of every open stream too, so an idle stream is
 * closed within one `pollIntervalMs` as well.
 */
export class LiveStreams {
  readonly options: LiveStreamOptions;
  private readonly subs = new Set<LiveSubscription>();
  private readonly onChange = () => this.wakeAll();
  private readonly onRead = (change: ReadStateChange) => {
    for (const sub of this.subs) if (sub.principal.userId === change.userId) sub.readChanged(change.channelIds);
  };
  private timer: NodeJS.Timeout | undefined;
  private lastSeq = 0;
  /** Set by closeAll(reason): streams opened from then on get the `shutdown` event at once. */
  private shutdownReason: string | undefined;

  constructor(
    private readonly deps: LiveStreamDeps,
    options: Partial<LiveStreamOptions> = {},
  ) {
    this.options = { ...DEFAULT_LIVE_OPTIONS, ...options };
  }

  /** Open connections (for tests and metrics). */
  get size(): number {
    return this.subs.size;
  }

  /** The newest change-log id ever assigned (0 when none). */
  headId(): Promise<number> {
    return this.deps.changes.headEventId();
  }

  /**
   * A subscription for one connection. Without `lastEventId` it starts at the
   * head (live events only); with it, everything after that id is replayed
   * first. If the ids the client missed were already pruned (or the id is from
   * the future, e.g. another database), a `resync` event tells it to refetch.
   */
  async open(principal: Principal, opts: { lastEventId?: number; channelId?: string; authorized?: Authorized } = {}): Promise<LiveSubscription> {
    if (this.shutdownReason !== undefined) {
      const sub = new LiveSubscription(this, principal, 0, undefined, undefined, () => false);
      sub.close(this.shutdownReason);
      return sub;
    }
    const head = await this.headId();
    let start = head;
    let resync: string | undefined;
    if (opts.lastEventId !== undefined) {
      const oldest = (await this.deps.changes.oldestEventId()) ?? head + 1;
      if (opts.lastEventId > head) resync = `event ${opts.lastEventId} is unknown here (newest is ${head}); refetch the alert lists`;
      else {
        start = opts.lastEventId;
        if (oldest > opts.lastEventId + 1) resync = `events ${opts.lastEventId + 1}–${oldest - 1} were pruned; refetch the alert lists`;
      }
    }
    // Counted after the awaits above, so two opens racing cannot both take the last slot.
    let mine = 0;
    for (const sub of this.subs) if (sub.principal.tokenId === principal.tokenId) mine++;
    if (mine >= this.options.maxPerToken || this.subs.size >= this.options.maxTotal) {
      throw new AppError(
        'rate-limited',
        mine >= this.options.maxPerToken
          ? `this token already has ${mine} open streams (at most ${this.options.maxPerToken}); close one first`
          : `the server has ${this.subs.size} open streams (at most ${this.options.maxTotal}); retry later`,
        { retryAfter: Math.ceil(this.options.retryMs / 1000) },
      );
    }
    // A dashboard session is not a token: its route passes its own check.
    const authorized = opts.authorized ?? (() => this.deps.stillAuthorized(principal));
    const sub = new LiveSubscription(this, principal, start, opts.channelId, resync, authorized);
    this.subs.add(sub);
    if (this.subs.size === 1) {
      this.lastSeq = head;
      this.deps.bus.on('alert-events', this.onChange);
      this.deps.bus.on('read-state', this.onRead);
      this.timer = setInterval(() => void this.poll(), this.options.pollIntervalMs);
      this.timer.unref();
    }
    return sub;
  }

  /**
   * Ends every open stream (shutdown: lets the HTTP server close its connections).
   * With a reason, each stream's last event is `shutdown` (`{"reason", "retryMs"}`)
   * telling the client to reconnect, and streams opened later get only that.
   */
  closeAll(reason?: string): void {
    if (reason !== undefined) this.shutdownReason = reason;
    for (const sub of [...this.subs]) sub.close(reason);
  }

  /** @internal */
  release(sub: LiveSubscription): void {
    if (!this.subs.delete(sub) || this.subs.size > 0) return;
    this.deps.bus.off('alert-events', this.onChange);
    this.deps.bus.off('read-state', this.onRead);
    clearInterval(this.timer);
  }

  /** @internal */
  async read(
    p: Principal,
    after: number,
    channelFilter: string | undefined,
    authorized: Authorized,
  ): Promise<{ events: LiveEvent[]; last: number; full: boolean; authorized: boolean }> {
    if (!(await authorized())) return { events: [], last: after, full: false, authorized: false };
    const rows = await this.deps.changes.eventsAfter(after, this.options.batchSize);
    if (rows.length === 0) return { events: [], last: after, full: false, authorized: true };
    const visible = new Set(await this.deps.alerts.visibleChannelIds(p));
    const events: LiveEvent[] = [];
    for (const r of rows) {
      if (!visible.has(r.channelId) || (channelFilter && r.channelId !== channelFilter)) continue;
      const ev = await this.render(p, r);
      if (ev) events.push(ev);
    }
    return { events, last: rows[rows.length - 1]!.id, full: rows.length === this.options.batchSize, authorized: true };
  }

  /** @internal `read.updated` events: the user's unread count now, per changed channel they can see (and the filter allows). */
  async readEvents(p: Principal, channelIds: Set<string>, channelFilter: string | undefined): Promise<LiveEvent[]> {
    const counts = await this.deps.alerts.visibleChannels(p);
    return counts
      .filter((c) => channelIds.has(c.id) && (!channelFilter || c.id === channelFilter))
      .map((c) => ({ event: 'read.updated' as const, data: JSON.stringify({ channelId: c.id, unread: c.unread }) }));
  }

  /** The alert as the read API renders it for this user NOW (read state included); deletions carry only ids. */
  private async render(p: Principal, r: ChangeEvent): Promise<LiveEvent | null> {
    const id = String(r.id);
    if (r.type === 'alert.deleted') return { event: r.type, id, data: JSON.stringify({ id: r.alertId, channelId: r.channelId }) };
    const row = await this.deps.alerts.alert(r.alertId);
    // Gone since: its alert.deleted event follows in the log.
    if (!row || row.channelId !== r.channelId) return null;
    const [view] = await this.deps.readApi.render(p.userId, row.channelId, [row]);
    return { event: r.type, id, data: JSON.stringify(view) };
  }

  /**
   * Every interval: close the streams whose token was revoked or whose user
   * left the workspace (an idle stream is never woken by the change log, so
   * `read` alone would keep it open indefinitely), then wake the rest if the log grew
   * (changes written by another process). One `authorized` query per token.
   */
  private async poll(): Promise<void> {
    await this.closeUnauthorized();
    if (this.subs.size === 0) return;
    const seq = await this.headId();
    if (seq !== this.lastSeq) {
      this.lastSeq = seq;
      this.wakeAll();
    }
  }

  private async closeUnauthorized(): Promise<void> {
    const ok = new Map<string, boolean>();
    for (const sub of [...this.subs]) {
      const p = sub.principal;
      let allowed = ok.get(p.tokenId);
      if (allowed === undefined) {
        allowed = await sub.authorized();
        ok.set(p.tokenId, allowed);
      }
      if (!allowed) sub.close();
    }
  }

  private wakeAll(): void {
    for (const sub of this.subs) sub.wake();
  }
}

/** One connection's cursor over the change log; iterate it to get its events in order. */
export class LiveSubscription implements AsyncIterable<LiveEvent> {
  private closed = false;
  private farewell: string | undefined;
  private dirty = true;
  private waiting: (() => void) | undefined;
  private readonly readPending = new Set<string>();

  constructor(
    private readonly hub: LiveStreams,
    readonly principal: Principal,
    private last: number,
    private readonly channelFilter: string | undefined,
    private resync: string | undefined,
    readonly authorized: Authorized,
  ) {}

  /** The user's read state changed in these channels (any client of theirs): a `read.updated` follows. */
  readChanged(channelIds: string[]): void {
    for (const id of channelIds) this.readPending.add(id);
    this.wake();
  }

  wake(): void {
    this.dirty = true;
    this.waiting?.();
  }

  close(farewell?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.farewell = farewell;
    this.hub.release(this);
    this.waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<LiveEvent> {
    try {
      if (this.resync) yield { event: 'resync', data: JSON.stringify({ reason: this.resync }) };
      while (!this.closed) {
        if (!this.dirty) {
          await new Promise<void>((resolve) => (this.waiting = resolve));
          this.waiting = undefined;
          continue;
        }
        this.dirty = false;
        if (this.readPending.size > 0) {
          const ids = new Set(this.readPending);
          this.readPending.clear();
          if (!(await this.authorized())) break;
          for (const ev of await this.hub.readEvents(this.principal, ids, this.channelFilter)) {
            if (this.closed) return;
            yield ev;
          }
        }
        const batch = await this.hub.read(this.principal, this.last, this.channelFilter, this.authorized);
        if (!batch.authorized) break;
        for (const ev of batch.events) {
          if (this.closed) break;
          yield ev;
        }
        this.last = batch.last;
        if (batch.full) this.dirty = true;
      }
      if (this.farewell !== undefined) yield { event: 'shutdown', data: JSON.stringify({ reason: this.farewell, retryMs: this.hub.options.retryMs }) };
    } finally {
      this.close();
    }
  }
}
