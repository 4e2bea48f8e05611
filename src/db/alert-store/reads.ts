import type Database from 'better-sqlite3';
import type { AlertReads, AlertRow, AttachmentRow, ChannelRecord, PageQuery, ReadContext } from '../../domain/alert-store.js';
import type { Principal } from '../../domain/tokens.js';
import { VISIBLE_TO_PRINCIPAL } from '../../domain/visibility.js';
import { ALERT_COLUMNS, ATTACHMENT_COLUMNS, rawAlertRows } from './rows.js';

interface ChannelSqlRow {
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

type PrincipalParams = Pick<Principal, 'userId' | 'workspaceId'>;

/** The read side of the SQLite alert store: prepared once, run synchronously, answered as settled promises. */
export class SqliteAlertReads implements AlertReads {
  private readonly s;
  private readonly pages = new Map<string, (q: PageQuery) => AlertRow[]>();
  private readonly markAllTx: (userId: string, channelIds: string[], now: number) => void;

  constructor(private readonly sqlite: Database.Database) {
    this.s = {
      channels: sqlite.prepare<PrincipalParams, ChannelSqlRow & { unread: number }>(
        `SELECT ${CHANNEL_COLUMNS}, ${UNREAD_COUNT} AS unread
         FROM channels c
         LEFT JOIN read_marks rm ON rm.user_id = @userId AND rm.channel_id = c.id
         LEFT JOIN channel_stats cs ON cs.channel_id = c.id
         LEFT JOIN discord_links dl ON dl.channel_id = c.id
         WHERE ${VISIBLE_TO_PRINCIPAL} ORDER BY c.created_at, c.id`,
      ),
      channel: sqlite.prepare<PrincipalParams & { ref: string }, ChannelSqlRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
         WHERE (c.id = @ref OR c.slug = @ref) AND ${VISIBLE_TO_PRINCIPAL}`,
      ),
      visibleChannelIds: sqlite.prepare<PrincipalParams, string>(`SELECT c.id FROM channels c WHERE ${VISIBLE_TO_PRINCIPAL}`).pluck(),
      visibleAlert: sqlite.prepare<PrincipalParams & { alertId: string }, AlertRow & { channelName: string; channelSlug: string }>(
        `SELECT ${ALERT_COLUMNS}, c.name AS channelName, c.slug AS channelSlug
         FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.id = @alertId AND ${VISIBLE_TO_PRINCIPAL}`,
      ),
      alert: sqlite.prepare<[string], AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ?`),
      watermark: sqlite.prepare<[string, string], string>('SELECT watermark FROM read_marks WHERE user_id = ? AND channel_id = ?').pluck(),
      upsertException: sqlite.prepare<[string, string, string, string, number]>(
        `INSERT INTO read_exceptions (user_id, alert_id, channel_id, activity_key, is_read) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (user_id, alert_id) DO UPDATE SET activity_key = excluded.activity_key, is_read = excluded.is_read`,
      ),
      deleteException: sqlite.prepare<[string, string]>('DELETE FROM read_exceptions WHERE user_id = ? AND alert_id = ?'),
      maxActivity: sqlite.prepare<[string], string | null>('SELECT max(activity_key) FROM alerts WHERE channel_id = ?').pluck(),
      upsertMark: sqlite.prepare<[string, string, string, number]>(
        `INSERT INTO read_marks (user_id, channel_id, watermark, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, channel_id) DO UPDATE SET watermark = max(watermark, excluded.watermark), updated_at = excluded.updated_at`,
      ),
      clearExceptions: sqlite.prepare<[string, string]>('DELETE FROM read_exceptions WHERE user_id = ? AND channel_id = ?'),
      // The page's ids go in as one JSON array: a constant prepared statement,
      // and only this page's rows are read (an id range would also sweep in
      // every other channel's alerts created in the same span).
      exceptionsForPage: sqlite.prepare<[string, string], { alertId: string; activityKey: string; isRead: number }>(
        `SELECT alert_id AS alertId, activity_key AS activityKey, is_read AS isRead FROM read_exceptions
         WHERE user_id = ? AND alert_id IN (SELECT value FROM json_each(?))`,
      ),
      attachmentsForPage: sqlite.prepare<[string], AttachmentRow>(
        `SELECT ${ATTACHMENT_COLUMNS} FROM alert_attachments WHERE alert_id IN (SELECT value FROM json_each(?)) ORDER BY alert_id, position`,
      ),
    };
    const tx = sqlite.transaction((userId: string, channelIds: string[], now: number) => {
      for (const id of channelIds) {
        const max = this.s.maxActivity.get(id);
        if (max !== null && max !== undefined) this.s.upsertMark.run(userId, id, max, now);
        this.s.clearExceptions.run(userId, id);
      }
    });
    this.markAllTx = (userId, channelIds, now) => tx.immediate(userId, channelIds, now);
  }

  async visibleChannels(p: Principal) {
    return this.s.channels.all(p).map((r) => ({ ...channelRecord(r), unread: r.unread }));
  }

  async visibleChannel(p: Principal, ref: string) {
    const row = this.s.channel.get({ userId: p.userId, workspaceId: p.workspaceId, ref });
    return row && channelRecord(row);
  }

  async visibleChannelIds(p: Principal) {
    return this.s.visibleChannelIds.all(p);
  }

  async page(q: PageQuery) {
    return this.pageStatement(q)(q);
  }

  async visibleAlert(p: Principal, alertId: string) {
    return this.s.visibleAlert.get({ userId: p.userId, workspaceId: p.workspaceId, alertId });
  }

  async alert(alertId: string) {
    return this.s.alert.get(alertId);
  }

  async readContext(userId: string, channelId: string, alertIds: string[]): Promise<ReadContext> {
    const ids = JSON.stringify(alertIds);
    const exceptions: ReadContext['exceptions'] = new Map();
    for (const e of this.s.exceptionsForPage.all(userId, ids)) exceptions.set(e.alertId, { activityKey: e.activityKey, isRead: e.isRead === 1 });
    const attachments: ReadContext['attachments'] = new Map();
    for (const a of this.s.attachmentsForPage.all(ids)) {
      const list = attachments.get(a.alertId);
      if (list) list.push(a);
      else attachments.set(a.alertId, [a]);
    }
    return { watermark: this.s.watermark.get(userId, channelId) ?? '', exceptions, attachments };
  }

  async setRead(userId: string, alert: Pick<AlertRow, 'id' | 'channelId' | 'activityKey'>, isRead: boolean) {
    const coveredByWatermark = alert.activityKey <= (this.s.watermark.get(userId, alert.channelId) ?? '');
    if (isRead === coveredByWatermark) this.s.deleteException.run(userId, alert.id);
    else this.s.upsertException.run(userId, alert.id, alert.channelId, alert.activityKey, isRead ? 1 : 0);
  }

  async markAllRead(userId: string, channelIds: string[], now: number) {
    this.markAllTx(userId, channelIds, now);
  }

  /** One prepared statement per filter combination (at most 8), built on first use. */
  private pageStatement(q: PageQuery): (q: PageQuery) => AlertRow[] {
    const key = `${q.level ? 'l' : ''}${q.cursor ? 'c' : ''}${q.after ? 'a' : ''}`;
    let run = this.pages.get(key);
    if (!run) {
      const where = ['a.channel_id = @channelId'];
      if (q.level) where.push('a.level = @level');
      if (q.cursor) where.push('a.id < @cursor');
      if (q.after) where.push('a.id > @after');
      const rows = rawAlertRows(
        this.sqlite
          .prepare<Record<string, unknown>, unknown[]>(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE ${where.join(' AND ')} ORDER BY a.id DESC LIMIT @limit`)
          .raw(),
      );
      run = (p) => rows({ channelId: p.channelId, level: p.level ?? null, cursor: p.cursor ?? null, after: p.after ?? null, limit: p.limit });
      this.pages.set(key, run);
    }
    return run;
  }
}

function channelRecord(r: ChannelSqlRow): ChannelRecord {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    icon: r.icon,
    isPrivate: r.isPrivate === 1,
    webhookToken: r.webhookToken,
    discord: r.discordChannelId
      ? { channelId: r.discordChannelId, guildId: r.guildId, guildName: r.guildName, channelName: r.discordChannelName }
      : null,
  };
}
