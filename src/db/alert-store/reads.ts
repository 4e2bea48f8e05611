import type Database from 'better-sqlite3';
import type { AlertReads, AlertRow, AttachmentRow, PageQuery, ReadContext } from '../../domain/alert-store.js';
import type { Principal } from '../../domain/tokens.js';
import { VISIBLE_TO_PRINCIPAL } from '../visibility.js';
import { ALERT_COLUMNS, ATTACHMENT_COLUMNS, channelRecordOf, rawAlertRows, type ChannelJoinRow } from './rows.js';

const CHANNEL_COLUMNS = `c.id, c.name, c.slug, c.icon, c.is_private AS isPrivate, c.webhook_token AS webhookToken,
  dl.discord_channel_id AS discordChannelId, dl.guild_id AS guildId, dl.guild_name AS guildName,
  dl.discord_channel_name AS discordChannelName`;

/**
 * Unread, in constant time whatever the reader's lag: the channel's sequence
 * numbers above the watermark (seq_max - watermark_seq) less those that no
 * longer hold an alert (gone_above, kept by triggers), corrected by the user's
 * per-alert exceptions that still match their alert's number (a few rows, one
 * index range). A channel the user never marked read counts every alert
 * (channel_stats.alert_count). See the README's "Read state that scales".
 */
const UNREAD_COUNT = `(
  (CASE WHEN rm.user_id IS NULL THEN COALESCE(cs.alert_count, 0)
        ELSE COALESCE(cs.seq_max, 0) - rm.watermark_seq - rm.gone_above END)
  + (SELECT COALESCE(sum(CASE WHEN e.is_read = 1 THEN -(e.seq > COALESCE(rm.watermark_seq, 0))
                              ELSE (e.seq <= COALESCE(rm.watermark_seq, 0)) END), 0)
     FROM read_exceptions e JOIN alerts a ON a.id = e.alert_id AND a.seq = e.seq
     WHERE e.user_id = @userId AND e.channel_id = c.id)
)`;

type PrincipalParams = Pick<Principal, 'userId' | 'workspaceId'>;

/** The read side of the SQLite alert store: prepared once, run synchronously, answered as settled promises. */
export class SqliteAlertReads implements AlertReads {
  private readonly s;
  private readonly pages = new Map<string, (q: PageQuery) => AlertRow[]>();
  private readonly markAllTx: (userId: string, channelIds: string[], now: number) => void;

  constructor(private readonly sqlite: Database.Database) {
    this.s = {
      channels: sqlite.prepare<PrincipalParams, ChannelJoinRow & { unread: number }>(
        `SELECT ${CHANNEL_COLUMNS}, ${UNREAD_COUNT} AS unread
         FROM channels c
         LEFT JOIN read_marks rm ON rm.user_id = @userId AND rm.channel_id = c.id
         LEFT JOIN channel_stats cs ON cs.channel_id = c.id
         LEFT JOIN discord_links dl ON dl.channel_id = c.id
         WHERE ${VISIBLE_TO_PRINCIPAL} ORDER BY c.created_at, c.id`,
      ),
      channel: sqlite.prepare<PrincipalParams & { ref: string }, ChannelJoinRow>(
        `SELECT ${CHANNEL_COLUMNS} FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
         WHERE (c.id = @ref OR c.slug = @ref) AND ${VISIBLE_TO_PRINCIPAL}`,
      ),
      visibleChannelIds: sqlite.prepare<PrincipalParams, string>(`SELECT c.id FROM channels c WHERE ${VISIBLE_TO_PRINCIPAL}`).pluck(),
      visibleAlert: sqlite.prepare<PrincipalParams & { alertId: string }, AlertRow & { channelName: string; channelSlug: string }>(
        `SELECT ${ALERT_COLUMNS}, c.name AS channelName, c.slug AS channelSlug
         FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.id = @alertId AND ${VISIBLE_TO_PRINCIPAL}`,
      ),
      alert: sqlite.prepare<[string], AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts a WHERE a.id = ?`),
      watermark: sqlite
        .prepare<[string, string], number>('SELECT watermark_seq FROM read_marks WHERE user_id = ? AND channel_id = ?')
        .pluck(),
      // One statement for a page's read state: most users have no exceptions in a channel, and then the per-id look-ups are skipped.
      pageState: sqlite.prepare<[string, string, string, string], { watermark: number | null; hasExceptions: number }>(
        `SELECT (SELECT watermark_seq FROM read_marks WHERE user_id = ? AND channel_id = ?) AS watermark,
                EXISTS (SELECT 1 FROM read_exceptions WHERE user_id = ? AND channel_id = ?) AS hasExceptions`,
      ),
      upsertException: sqlite.prepare<[string, string, string, number, number]>(
        `INSERT INTO read_exceptions (user_id, alert_id, channel_id, seq, is_read) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (user_id, alert_id) DO UPDATE SET seq = excluded.seq, is_read = excluded.is_read`,
      ),
      deleteException: sqlite.prepare<[string, string]>('DELETE FROM read_exceptions WHERE user_id = ? AND alert_id = ?'),
      // The watermark moves to the channel's last number: nothing above it, so nothing gone above it.
      upsertMark: sqlite.prepare<[string, number, string]>(
        `INSERT INTO read_marks (user_id, channel_id, watermark_seq, gone_above, updated_at)
           SELECT ?, channel_id, seq_max, 0, ? FROM channel_stats WHERE channel_id = ? AND seq_max > 0
         ON CONFLICT (user_id, channel_id) DO UPDATE SET watermark_seq = excluded.watermark_seq, gone_above = 0, updated_at = excluded.updated_at`,
      ),
      clearExceptions: sqlite.prepare<[string, string]>('DELETE FROM read_exceptions WHERE user_id = ? AND channel_id = ?'),
      // The page's ids go in as one JSON array: a constant prepared statement,
      // and only this page's rows are read (an id range would also sweep in
      // every other channel's alerts created in the same span).
      exceptionsForPage: sqlite.prepare<[string, string], { alertId: string; seq: number; isRead: number }>(
        `SELECT alert_id AS alertId, seq, is_read AS isRead FROM read_exceptions
         WHERE user_id = ? AND alert_id IN (SELECT value FROM json_each(?))`,
      ),
      attachmentsForPage: sqlite.prepare<[string], AttachmentRow>(
        `SELECT ${ATTACHMENT_COLUMNS} FROM alert_attachments WHERE alert_id IN (SELECT value FROM json_each(?)) ORDER BY alert_id, position`,
      ),
    };
    const tx = sqlite.transaction((userId: string, channelIds: string[], now: number) => {
      for (const id of channelIds) {
        this.s.upsertMark.run(userId, now, id);
        this.s.clearExceptions.run(userId, id);
      }
    });
    this.markAllTx = (userId, channelIds, now) => tx.immediate(userId, channelIds, now);
  }

  async visibleChannels(p: Principal) {
    return this.s.channels.all(p).map((r) => ({ ...channelRecordOf(r), unread: r.unread }));
  }

  async visibleChannel(p: Principal, ref: string) {
    const row = this.s.channel.get({ userId: p.userId, workspaceId: p.workspaceId, ref });
    return row && channelRecordOf(row);
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
    const state = this.s.pageState.get(userId, channelId, userId, channelId);
    const exceptions: ReadContext['exceptions'] = new Map();
    if (state?.hasExceptions) {
      for (const e of this.s.exceptionsForPage.all(userId, ids)) exceptions.set(e.alertId, { seq: e.seq, isRead: e.isRead === 1 });
    }
    const attachments: ReadContext['attachments'] = new Map();
    for (const a of this.s.attachmentsForPage.all(ids)) {
      const list = attachments.get(a.alertId);
      if (list) list.push(a);
      else attachments.set(a.alertId, [a]);
    }
    return { watermark: state?.watermark ?? 0, exceptions, attachments };
  }

  async setRead(userId: string, alert: Pick<AlertRow, 'id' | 'channelId' | 'seq'>, isRead: boolean) {
    const coveredByWatermark = alert.seq <= (this.s.watermark.get(userId, alert.channelId) ?? 0);
    if (isRead === coveredByWatermark) this.s.deleteException.run(userId, alert.id);
    else this.s.upsertException.run(userId, alert.id, alert.channelId, alert.seq, isRead ? 1 : 0);
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
