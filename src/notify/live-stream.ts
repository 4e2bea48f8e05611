import type Database from 'better-sqlite3';
import { ALERT_COLUMNS, type AlertRow } from '../domain/alert-view.js';
import type { AlertEventType, ChangeBus } from '../domain/changes.js';
import { AppError } from '../domain/errors.js';
import type { ReadApi } from '../domain/read-api.js';
import type { Principal } from '../domain/tokens.js';
import { VISIBLE_TO_PRINCIPAL } from '../domain/visibility.js';

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

const DEFAULT_LIVE_OPTIONS: LiveStreamOptions = { heartbeatMs: 15_000, retryMs: 3_000, pollIntervalMs: 2_000, batchSize: 200, maxPerToken: 10, maxTotal: 1_000 };

/** One SSE message. `id` is the alert_events id, so `Last-Event-ID` resumes exactly after it. */
export interface LiveEvent {
  event: AlertEventType | 'resync' | 'shutdown';
  id?: string;
  data: string;
}

interface EventRow {
  id: number;
  channelId: string;
  alertId: string;
  type: AlertEventType;
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
  private readonly s;
  private readonly onChange = () => this.wakeAll();
  private timer: NodeJS.Timeout | undefined;
  private lastSeq = 0;
  /** Set by closeAll(reason): streams opened from then on get the `shutdown` event at once. */
  private shutdownReason: string | undefined;

  constructor(
    sqlite: Database.Database,
    private readonly bus: ChangeBus,
    private readonly readApi: ReadApi,
    options: Partial<LiveStreamOptions> = {},
  ) {
    this.options = { ...DEFAULT_LIVE_OPTIONS, ...options };
    const p = (sql: string) => sqlite.prepare(sql);
    this.s = {
      seq: p(`SELECT seq FROM sqlite_sequence WHERE name = 'alert_events'`),
      minId: p('SELECT min(id) AS id FROM alert_events'),
      after: p('SELECT id, channel_id AS channelId, alert_id AS alertId, type FROM alert_events WHERE id > ? ORDER BY id LIMIT ?'),
      visible: p(`SELECT c.id FROM channels c WHERE ${VISIBLE_TO_PRINCIPAL}`),
      authorized: p(
        `SELECT EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = @workspaceId AND m.user_id = @userId)
            AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = @tokenId AND t.revoked_at IS NULL) AS ok`,
      ),
      alert: p(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ?`),
    };
  }

  /** Open connections (for tests and metrics). */
  get size(): number {
    return this.subs.size;
  }

  /** The newest change-log id ever assigned (0 when none). */
  headId(): number {
    return (this.s.seq.get() as { seq: number } | undefined)?.seq ?? 0;
  }

  /**
   * A subscription for one connection. Without `lastEventId` it starts at the
   * head (live events only); with it, everything after that id is replayed
   * first. If the ids the client missed were already pruned (or the id is from
   * the future, e.g. another database), a `resync` event tells it to refetch.
   */
  open(principal: Principal, opts: { lastEventId?: number; channelId?: string } = {}): LiveSubscription {
    if (this.shutdownReason !== undefined) {
      const sub = new LiveSubscription(this, principal, 0, undefined, undefined);
      sub.close(this.shutdownReason);
      return sub;
    }
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
    const head = this.headId();
    let start = head;
    let resync: string | undefined;
    if (opts.lastEventId !== undefined) {
      const oldest = (this.s.minId.get() as { id: number | null }).id ?? head + 1;
      if (opts.lastEventId > head) resync = `event ${opts.lastEventId} is unknown here (newest is ${head}); refetch the alert lists`;
      else {
        start = opts.lastEventId;
        if (oldest > opts.lastEventId + 1) resync = `events ${opts.lastEventId + 1}–${oldest - 1} were pruned; refetch the alert lists`;
      }
    }
    const sub = new LiveSubscription(this, principal, start, opts.channelId, resync);
    this.subs.add(sub);
    if (this.subs.size === 1) {
      this.lastSeq = head;
      this.bus.on('alert-events', this.onChange);
      this.timer = setInterval(() => this.poll(), this.options.pollIntervalMs);
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
    this.bus.off('alert-events', this.onChange);
    clearInterval(this.timer);
  }

  /** @internal */
  read(p: Principal, after: number, channelFilter: string | undefined): { events: LiveEvent[]; last: number; full: boolean; authorized: boolean } {
    if (!(this.s.authorized.get(p) as { ok: number }).ok) return { events: [], last: after, full: false, authorized: false };
    const rows = this.s.after.all(after, this.options.batchSize) as EventRow[];
    if (rows.length === 0) return { events: [], last: after, full: false, authorized: true };
    const visible = new Set((this.s.visible.all(p) as { id: string }[]).map((r) => r.id));
    const events: LiveEvent[] = [];
    for (const r of rows) {
      if (!visible.has(r.channelId) || (channelFilter && r.channelId !== channelFilter)) continue;
      const ev = this.render(p, r);
      if (ev) events.push(ev);
    }
    return { events, last: rows[rows.length - 1]!.id, full: rows.length === this.options.batchSize, authorized: true };
  }

  /** The alert as the read API renders it for this user NOW (read state included); deletions carry only ids. */
  private render(p: Principal, r: EventRow): LiveEvent | null {
    const id = String(r.id);
    if (r.type === 'alert.deleted') return { event: r.type, id, data: JSON.stringify({ id: r.alertId, channelId: r.channelId }) };
    const row = this.s.alert.get(r.alertId) as AlertRow | undefined;
    // Gone since: its alert.deleted event follows in the log.
    if (!row || row.channelId !== r.channelId) return null;
    const [view] = this.readApi.render(p.userId, row.channelId, [row]);
    return { event: r.type, id, data: JSON.stringify(view) };
  }

  /**
   * Every interval: close the streams whose token was revoked or whose user
   * left the workspace (an idle stream is never woken by the change log, so
   * `read` alone would keep it open indefinitely), then wake the rest if the log grew
   * (changes written by another process). One `authorized` query per token.
   */
  private poll(): void {
    this.closeUnauthorized();
    if (this.subs.size === 0) return;
    const seq = this.headId();
    if (seq !== this.lastSeq) {
      this.lastSeq = seq;
      this.wakeAll();
    }
  }

  private closeUnauthorized(): void {
    const ok = new Map<string, boolean>();
    for (const sub of [...this.subs]) {
      const p = sub.principal;
      let allowed = ok.get(p.tokenId);
      if (allowed === undefined) {
        allowed = Boolean((this.s.authorized.get(p) as { ok: number }).ok);
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

  constructor(
    private readonly hub: LiveStreams,
    readonly principal: Principal,
    private last: number,
    private readonly channelFilter: string | undefined,
    private resync: string | undefined,
  ) {}

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
        const batch = this.hub.read(this.principal, this.last, this.channelFilter);
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
