import type Database from 'better-sqlite3';
import type { Clock } from '../lib/clock.js';
import { ALERT_COLUMNS, alertJson, rawAlertRows, toAlertView, type AlertRow, type AlertView, type AttachmentRow } from './alert-view.js';
import { AppError, notFound } from './errors.js';
import { VISIBLE_TO_PRINCIPAL } from './visibility.js';
import type { Principal } from './tokens.js';

export type LevelFilter = 'INFO' | 'SUCCESS' | 'WARNING' | 'ERROR';

export interface ListQuery {
  cursor?: string;
  after?: string;
  limit: number;
  level?: LevelFilter;
}

export interface ChannelView {
  id: string;
  name: string;
  slug: string;
  icon: string;
  isPrivate: boolean;
  webhookToken: string;
  chat: { platform: 'discord'; guildId: string | null; guildName: string | null; channelId: string; channelName: string | null } | null;
  _count: { alerts: number };
}

interface ChannelRow {
  id: string;
  name: string;
  slug: string;
  icon: string;
  isPrivate: number;
  webhookToken: string;
  discordChannelId: string | null;
  guildId: string | null;
  guildName: string | null;
  discordChannelName: string | null;
}



const CHANNEL_COLUMNS = `c.id, c.name, c.slug, c.icon, c.is_private AS isPrivate, c.webhook_token AS webhookToken,
  dl.discord_channel_id AS discordChannelId, dl.guild_id AS guildId, dl.guild_name AS guildName,
  dl.discord_channel_name AS discordChannelName`;

/**
 * Unread = newer than the user's watermark, corrected by per-alert exceptions
 * that still match the alert's activity key. Costs index range counts, never a
 * row per alert per user; a channel the user never read costs nothing (the
 * trigger-kept channel_stats count). See the README's "Read state".
 */
const UNREAD_COUNT = `(
  (CASE WHEN rm.watermark IS NULL THEN COALESCE(cs.alert_count, 0)
        ELSE (SELECT count(*) FROM alerts a WHERE a.channel_id = c.id AND a.activity_key > rm.watermark) END)
  - (SELECT count(*) FROM read_exceptions e JOIN alerts a ON a.id = e.alert_id AND a.activity_key = e.activity_key
     WHERE e.user_id = @userId AND e.channel_id = c.id AND e.is_read = 1 AND a.activity_key > COALESCE(rm.watermark, ''))
  + (SELECT count(*) FROM read_exceptions e JOIN alerts a ON a.id = e.alert_id AND a.activity_key = e.activity_key
     WHERE e.user_id = @userId AND e.channel_id = c.id AND e.is_read = 0 AND a.activity_key <= COALESCE(rm.watermark, ''))
)`;

/**
 * The authenticated read side: channels with unread counts, alert pages,
 * single alerts and per-user read state. Hot paths use prepared statements.
 */
export class ReadApi {
  private readonly stmts;
  private readonly listStmts = new Map<string, (params: Record<string, unknown>) => AlertRow[]>();

  constructor(
    private readonly sqlite: Database.Database,
    private readonly clock: Clock,
    private readonly mediaUrl: (key: string) => string,
  ) {
    const s = (sql: string) => sqlite.prepare(sql);
    this.stmts = {
      channels: s(
        `SELECT ${CHANNEL_COLUMNS}, ${UNREAD_COUNT} AS unread
         FROM channels c
         LEFT JOIN read_marks rm ON rm.user_id = @userId AND rm.channel_id = c.id
         LEFT JOIN channel_stats cs ON cs.channel_id = c.id
         LEFT JOIN discord_links dl ON dl.channel_id = c.id
         WHERE ${VISIBLE_TO_PRINCIPAL} ORDER BY c.created_at, c.id`,
      ),
      channel: s(
        `SELECT ${CHANNEL_COLUMNS} FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
         WHERE (c.id = @ref OR c.slug = @ref) AND ${VISIBLE_TO_PRINCIPAL}`,
      ),
      visibleChannelIds: s(`SELECT c.id FROM channels c WHERE ${VISIBLE_TO_PRINCIPAL}`),
      alert: s(
        `SELECT ${ALERT_COLUMNS}, c.name AS channelName, c.slug AS channelSlug
         FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.id = @alertId AND ${VISIBLE_TO_PRINCIPAL}`,
      ),
      watermark: s('SELECT watermark FROM read_marks WHERE user_id = ? AND channel_id = ?'),
      exception: s('SELECT activity_key AS activityKey, is_read AS isRead FROM read_exceptions WHERE user_id = ? AND alert_id = ?'),
      upsertException: s(
        `INSERT INTO read_exceptions (user_id, alert_id, channel_id, activity_key, is_read) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (user_id, alert_id) DO UPDATE SET activity_key = excluded.activity_key, is_read = excluded.is_read`,
      ),
      deleteException: s('DELETE FROM read_exceptions WHERE user_id = ? AND alert_id = ?'),
      maxActivity: s('SELECT max(activity_key) AS k FROM alerts WHERE channel_id = ?'),
      upsertMark: s(
        `INSERT INTO read_marks (user_id, channel_id, watermark, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, channel_id) DO UPDATE SET watermark = max(watermark, excluded.watermark), updated_at = excluded.updated_at`,
      ),
      clearExceptions: s('DELETE FROM read_exceptions WHERE user_id = ? AND channel_id = ?'),
      // The page's ids go in as one JSON array: a constant prepared statement,
      // and only this page's rows are read (an id range would also sweep in
      // every other channel's alerts created in the same span).
      exceptionsForPage: s(
        `SELECT alert_id AS alertId, activity_key AS activityKey, is_read AS isRead FROM read_exceptions
         WHERE user_id = ? AND alert_id IN (SELECT value FROM json_each(?))`,
      ),
      attachmentsForPage: s(
        `SELECT alert_id AS alertId, position, media_key AS mediaKey, mime, kind, name, size FROM alert_attachments
         WHERE alert_id IN (SELECT value FROM json_each(?)) ORDER BY alert_id, position`,
      ),
    };
  }

  listChannels(p: Principal): ChannelView[] {
    const rows = this.stmts.channels.all(p) as (ChannelRow & { unread: number })[];
    return rows.map((r) => channelView(r, r.unread));
  }

  /** Resolves an id or slug to a visible channel, or a 404 identical to "does not exist". */
  resolveChannel(p: Principal, ref: string): ChannelRow {
    const row = this.stmts.channel.get({ ...p, ref }) as ChannelRow | undefined;
    if (!row) throw notFound('channel');
    return row;
  }

  /** A page as the response's JSON text (see alertJson): the hot read path. */
  listAlertsJson(p: Principal, ref: string, q: ListQuery): string {
    const { channelId, page, hasMore } = this.page(p, ref, q);
    const items = this.withReadState(p.userId, channelId, page, alertJson);
    return `{"alerts":[${items.join(',')}],"nextCursor":${hasMore ? JSON.stringify(page[page.length - 1]!.id) : 'null'},"hasMore":${hasMore}}`;
  }

  private page(p: Principal, ref: string, q: ListQuery) {
    const channel = this.resolveChannel(p, ref);
    if (q.level && channel.discordChannelId) {
      throw new AppError('invalid-query', 'the level filter does not apply to a chat-connected channel: its messages have no level', {
        details: [{ code: 'invalid_value', message: 'level is not supported on chat-connected channels', path: ['level'] }],
      });
    }
    const rows = this.listStatement(q)({
      channelId: channel.id,
      level: q.level ?? null,
      cursor: q.cursor ?? null,
      after: q.after ?? null,
      limit: q.limit + 1,
    });
    const hasMore = rows.length > q.limit;
    return { channelId: channel.id, page: hasMore ? rows.slice(0, q.limit) : rows, hasMore };
  }

  getAlert(p: Principal, alertId: string): AlertView & { channelName: string; channelSlug: string } {
    const row = this.stmts.alert.get({ ...p, alertId }) as (AlertRow & { channelName: string; channelSlug: string }) | undefined;
    if (!row) throw notFound('alert');
    const [view] = this.render(p.userId, row.channelId, [row]);
    return { ...view!, channelName: row.channelName, channelSlug: row.channelSlug };
  }

  setRead(p: Principal, alertId: string, isRead: boolean) {
    const row = this.stmts.alert.get({ ...p, alertId }) as AlertRow | undefined;
    if (!row) throw notFound('alert');
    const wm = (this.stmts.watermark.get(p.userId, row.channelId) as { watermark: string } | undefined)?.watermark ?? '';
    const coveredByWatermark = row.activityKey <= wm;
    if (isRead === coveredByWatermark) this.stmts.deleteException.run(p.userId, alertId);
    else this.stmts.upsertException.run(p.userId, alertId, row.channelId, row.activityKey, isRead ? 1 : 0);
    return this.getAlert(p, alertId);
  }

  /**
   * Moves the user's watermark to the newest activity in each channel and drops
   * their per-alert exceptions there: O(channels), whatever the alert count.
   */
  markAllRead(p: Principal, channelRef?: string): { channelIds: string[] } {
    const ids = channelRef
      ? [this.resolveChannel(p, channelRef).id]
      : (this.stmts.visibleChannelIds.all(p) as { id: string }[]).map((r) => r.id);
    const now = this.clock.now();
    this.sqlite.transaction(() => {
      for (const id of ids) {
        const max = (this.stmts.maxActivity.get(id) as { k: string | null }).k;
        if (max !== null) this.stmts.upsertMark.run(p.userId, id, max, now);
        this.stmts.clearExceptions.run(p.userId, id);
      }
    })();
    return { channelIds: ids };
  }

  /** Renders rows of one channel with the user's read state and attachments: two queries per page. */
  render(userId: string, channelId: string, rows: AlertRow[]): AlertView[] {
    return this.withReadState(userId, channelId, rows, toAlertView);
  }

  private withReadState<T>(
    userId: string,
    channelId: string,
    rows: AlertRow[],
    view: (row: AlertRow, attachments: AttachmentRow[], isRead: boolean, mediaUrl: (key: string) => string) => T,
  ): T[] {
    if (rows.length === 0) return [];
    const wm = (this.stmts.watermark.get(userId, channelId) as { watermark: string } | undefined)?.watermark ?? '';
    const ids = JSON.stringify(rows.map((r) => r.id));
    const exceptions = new Map<string, { activityKey: string; isRead: number }>();
    for (const e of this.stmts.exceptionsForPage.all(userId, ids) as { alertId: string; activityKey: string; isRead: number }[]) {
      exceptions.set(e.alertId, e);
    }
    const attachments = new Map<string, AttachmentRow[]>();
    for (const a of this.stmts.attachmentsForPage.all(ids) as AttachmentRow[]) {
      const list = attachments.get(a.alertId) ?? [];
      list.push(a);
      attachments.set(a.alertId, list);
    }
    return rows.map((r) => {
      const e = exceptions.get(r.id);
      const isRead = e && e.activityKey === r.activityKey ? Boolean(e.isRead) : r.activityKey <= wm;
      return view(r, attachments.get(r.id) ?? [], isRead, this.mediaUrl);
    });
  }

  private listStatement(q: ListQuery): (params: Record<string, unknown>) => AlertRow[] {
    const key = `${q.level ? 'l' : ''}${q.cursor ? 'c' : ''}${q.after ? 'a' : ''}`;
    let run = this.listStmts.get(key);
    if (!run) {
      const where = ['a.channel_id = @channelId'];
      if (q.level) where.push('a.level = @level');
      if (q.cursor) where.push('a.id < @cursor');
      if (q.after) where.push('a.id > @after');
      const stmt = this.sqlite
        .prepare(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE ${where.join(' AND ')} ORDER BY a.id DESC LIMIT @limit`)
        .raw();
      const toRow = rawAlertRows(stmt.columns());
      run = (params) => (stmt.all(params) as unknown[][]).map(toRow);
      this.listStmts.set(key, run);
    }
    return run;
  }

}

function channelView(r: ChannelRow, unread: number): ChannelView {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    icon: r.icon,
    isPrivate: Boolean(r.isPrivate),
    webhookToken: r.webhookToken,
    chat: r.discordChannelId
      ? { platform: 'discord', guildId: r.guildId, guildName: r.guildName, channelId: r.discordChannelId, channelName: r.discordChannelName }
      : null,
    _count: { alerts: unread },
  };
}
