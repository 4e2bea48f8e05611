import type { AlertLevel, AlertReads, AlertRow, AttachmentRow, ChannelRecord, ReadContext } from './alert-store.js';
import { pushAlertJson, toAlertView, type AlertView } from './alert-view.js';
import type { Clock } from '../lib/clock.js';
import { Utf8Writer } from '../lib/utf8-writer.js';
import { AppError, notFound, type ValidationIssue } from './errors.js';
import type { Principal } from './tokens.js';
import { parseStatusFilter, type AlertStatus } from './alert-lifecycle.js';

export interface ListQuery {
  cursor?: string;
  after?: string;
  limit: number;
  level?: AlertLevel;
  /** Comma-separated statuses (checked here). */
  status?: string;
  /** One Discord thread's messages (its snowflake, as `thread.id` shows it); one that does not exist gives an empty page. */
  thread?: string;
  /** Oldest first; a cursor then means "strictly newer than". */
  ascending?: boolean;
}

/** A channel as the read API shows it: the stored record, its Discord link as `chat`, and the user's unread count. */
export type ChannelView = Omit<ChannelRecord, 'discord'> & {
  chat: { platform: 'discord'; guildId: string | null; guildName: string | null; channelId: string; channelName: string | null } | null;
  _count: { alerts: number };
};

export type SingleAlertView = AlertView & { channelName: string; channelSlug: string };

/**
 * The authenticated read side: channels with unread counts, alert pages,
 * single alerts and per-user read state. One method per operation of the read
 * API; every query goes through the alert store.
 */
export class ReadApi {
  constructor(
    private readonly store: AlertReads,
    private readonly clock: Clock,
    private readonly mediaUrl: (key: string) => string,
    /** After a committed read-state change (the live stream's `read.updated`). */
    private readonly onReadChange: (userId: string, channelIds: string[]) => void = () => {},
  ) {}

  async listChannels(p: Principal): Promise<ChannelView[]> {
    return (await this.store.visibleChannels(p)).map((r) => channelView(r, r.unread));
  }

  /** Resolves an id or slug to a visible channel, or a not-found identical to "does not exist". */
  async resolveChannel(p: Principal, ref: string): Promise<ChannelRecord> {
    const channel = await this.store.visibleChannel(p, ref);
    if (!channel) throw notFound('channel');
    return channel;
  }

  /** A page as the response's JSON text (see pushAlertJson). */
  async listAlertsJson(p: Principal, ref: string, q: ListQuery): Promise<string> {
    return (await this.listAlertsJsonBytes(p, ref, q)).toString('utf8');
  }

  /**
   * A page as the response's UTF-8 bytes, the hot read path: the JSON is encoded piece by piece into
   * one reused buffer (src/lib/utf8-writer.ts), never held as an array of pieces or a joined string.
   */
  async listAlertsJsonBytes(p: Principal, ref: string, q: ListQuery): Promise<Buffer<ArrayBuffer>> {
    let status: AlertStatus[] | undefined;
    try {
      status = q.status === undefined ? undefined : parseStatusFilter(q.status);
    } catch (err) {
      // The refusals keep their order: a channel not found, then the level filter, then the status.
      this.checkLevel(q, await this.resolveChannel(p, ref));
      throw err;
    }
    // The channel, its page and the page's read context in one call (on PostgreSQL, one statement).
    const found = await this.store.channelPage(p, ref, {
      level: q.level,
      status,
      cursor: q.cursor,
      after: q.after,
      threadId: q.thread,
      ascending: q.ascending,
      limit: q.limit + 1,
    });
    if (!found) throw notFound('channel');
    this.checkLevel(q, found.channel);
    const { rows, context: ctx } = found;
    const hasMore = rows.length > q.limit;
    const count = hasMore ? q.limit : rows.length;
    // From here to bytes() nothing awaits: the shared writer is filled and copied in one go.
    const out = PAGE_WRITER.reset();
    out.push('{"alerts":[');
    for (let i = 0; i < count; i++) {
      const r = rows[i]!;
      if (i > 0) out.push(',');
      pushAlertJson(out, r, ctx.attachments.get(r.id) ?? NO_ATTACHMENTS, isReadIn(ctx, r), this.mediaUrl);
    }
    out.push('],"nextCursor":', hasMore ? JSON.stringify(rows[count - 1]!.id) : 'null', hasMore ? ',"hasMore":true}' : ',"hasMore":false}');
    return out.bytes();
  }

  /** Messages of a chat-connected channel have no level: filtering them by one is refused. */
  private checkLevel(q: ListQuery, channel: ChannelRecord): void {
    if (q.level && channel.discord) {
      const issue: ValidationIssue = { code: 'invalid_value', message: 'level is not supported on chat-connected channels', path: ['level'] };
      throw new AppError('invalid-query', 'the level filter does not apply to a chat-connected channel: its messages have no level', { details: [issue] });
    }
  }

  async getAlert(p: Principal, alertId: string): Promise<SingleAlertView> {
    const row = await this.store.visibleAlert(p, alertId);
    if (!row) throw notFound('alert');
    const [view] = await this.render(p.userId, row.channelId, [row]);
    return { ...view!, channelName: row.channelName, channelSlug: row.channelSlug };
  }

  async setRead(p: Principal, alertId: string, isRead: boolean): Promise<SingleAlertView> {
    const row = await this.store.visibleAlert(p, alertId);
    if (!row) throw notFound('alert');
    await this.store.setRead(p.userId, row, isRead);
    this.onReadChange(p.userId, [row.channelId]);
    return this.getAlert(p, alertId);
  }

  /**
   * Moves the user's watermark to the newest activity in each channel and drops
   * their per-alert exceptions there: O(channels), whatever the alert count.
   */
  async markAllRead(p: Principal, channelRef?: string): Promise<{ channelIds: string[] }> {
    const ids = channelRef ? [(await this.resolveChannel(p, channelRef)).id] : await this.store.visibleChannelIds(p);
    await this.store.markAllRead(p.userId, ids, this.clock.now());
    this.onReadChange(p.userId, ids);
    return { channelIds: ids };
  }

  /** Renders rows of one channel with the user's read state and attachments: two queries per page. */
  async render(userId: string, channelId: string, rows: AlertRow[]): Promise<AlertView[]> {
    if (rows.length === 0) return [];
    const ctx = await this.store.readContext(userId, channelId, rows.map((r) => r.id));
    return rows.map((r) => toAlertView(r, ctx.attachments.get(r.id) ?? NO_ATTACHMENTS, isReadIn(ctx, r), this.mediaUrl));
  }
}

const NO_ATTACHMENTS: AttachmentRow[] = [];

/** One writer for every page of this process (pages are rendered one at a time, synchronously). */
const PAGE_WRITER = new Utf8Writer();


/** A row's read state for the user: its exception when it is about this version of the row, else the watermark. */
function isReadIn(ctx: ReadContext, r: AlertRow): boolean {
  const e = ctx.exceptions.get(r.id);
  return e && e.seq === r.seq ? e.isRead : r.seq <= ctx.watermark;
}

function channelView(r: ChannelRecord, unread: number): ChannelView {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    icon: r.icon,
    isPrivate: r.isPrivate,
    webhookToken: r.webhookToken,
    chat: r.discord ? { platform: 'discord', ...r.discord } : null,
    _count: { alerts: unread },
  };
}
