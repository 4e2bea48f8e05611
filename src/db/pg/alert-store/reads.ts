import type pg from 'pg';
import type { AlertReads, AlertRow, AttachmentRow, PageQuery, ReadContext } from '../../../domain/alert-store.js';
import type { Principal } from '../../../domain/tokens.js';
import { channelRecordOf, type ChannelJoinRow } from '../../alert-store/rows.js';
import { PG_ALERT_COLUMNS, PG_ATTACHMENT_COLUMNS, PG_VISIBLE_TO_PRINCIPAL } from './rows.js';
import { inTransaction } from '../transaction.js';

const CHANNEL_COLUMNS = `c.id, c.name, c.slug, c.icon, c.is_private AS "isPrivate", c.webhook_token AS "webhookToken",
  dl.discord_channel_id AS "discordChannelId", dl.guild_id AS "guildId", dl.guild_name AS "guildName",
  dl.discord_channel_name AS "discordChannelName"`;

/**
 * The unread rule of the SQLite store (src/db/alert-store/reads.ts, README "Read state that
 * scales"), in constant time: the channel's sequence numbers above the watermark less those gone
 * above it, corrected by the user's exceptions that still match their alert's number. The user is
 * `$2`; the sum is cast back to bigint (sum over bigint is numeric, which `pg` gives as a string).
 */
const UNREAD_COUNT = `(
  (CASE WHEN rm.user_id IS NULL THEN COALESCE(cs.alert_count, 0)
        ELSE COALESCE(cs.seq_max, 0) - rm.watermark_seq - rm.gone_above END)
  + (SELECT COALESCE(sum(CASE WHEN e.is_read THEN -(e.seq > COALESCE(rm.watermark_seq, 0))::int
                              ELSE (e.seq <= COALESCE(rm.watermark_seq, 0))::int END), 0)
     FROM read_exceptions e JOIN alerts a ON a.id = e.alert_id AND a.seq = e.seq
     WHERE e.user_id = $2 AND e.channel_id = c.id)
)::bigint`;

/**
 * The read side of the alert store on PostgreSQL, behind the same interface as the SQLite one
 * (test/cluster/alert-reads-contract.test.ts runs the same cases on both). Text compares byte-wise
 * (every text column is COLLATE "C"), so ids and cursors order as on SQLite; bigint
 * comes back as a number (src/db/pg/connection.ts).
 */
export class PgAlertReads implements AlertReads {
  constructor(private readonly pool: pg.Pool) {}

  async visibleChannels(p: Principal) {
    const { rows } = await this.pool.query<ChannelJoinRow & { unread: number }>(
      `SELECT ${CHANNEL_COLUMNS}, ${UNREAD_COUNT} AS unread
       FROM channels c
       LEFT JOIN read_marks rm ON rm.user_id = $2 AND rm.channel_id = c.id
       LEFT JOIN channel_stats cs ON cs.channel_id = c.id
       LEFT JOIN discord_links dl ON dl.channel_id = c.id
       WHERE ${PG_VISIBLE_TO_PRINCIPAL} ORDER BY c.created_at, c.id`,
      [p.workspaceId, p.userId],
    );
    return rows.map((r) => ({ ...channelRecordOf(r), unread: r.unread }));
  }

  async visibleChannel(p: Principal, ref: string) {
    const { rows } = await this.pool.query<ChannelJoinRow>(
      `SELECT ${CHANNEL_COLUMNS} FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
       WHERE (c.id = $3 OR c.slug = $3) AND ${PG_VISIBLE_TO_PRINCIPAL}`,
      [p.workspaceId, p.userId, ref],
    );
    return rows[0] && channelRecordOf(rows[0]);
  }

  async visibleChannelIds(p: Principal) {
    const { rows } = await this.pool.query<{ id: string }>(`SELECT c.id FROM channels c WHERE ${PG_VISIBLE_TO_PRINCIPAL}`, [p.workspaceId, p.userId]);
    return rows.map((r) => r.id);
  }

  async page(q: PageQuery) {
    const values: unknown[] = [q.channelId];
    const where = ['a.channel_id = $1'];
    const bind = (v: unknown) => `$${values.push(v)}`;
    if (q.level) where.push(`a.level = ${bind(q.level)}`);
    if (q.cursor) where.push(`a.id < ${bind(q.cursor)}`);
    if (q.after) where.push(`a.id > ${bind(q.after)}`);
    const { rows } = await this.pool.query<AlertRow>(`SELECT ${PG_ALERT_COLUMNS} FROM alerts a WHERE ${where.join(' AND ')} ORDER BY a.id DESC LIMIT ${bind(q.limit)}`, values);
    return rows;
  }

  async visibleAlert(p: Principal, alertId: string) {
    const { rows } = await this.pool.query<AlertRow & { channelName: string; channelSlug: string }>(
      `SELECT ${PG_ALERT_COLUMNS}, c.name AS "channelName", c.slug AS "channelSlug"
       FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.id = $3 AND ${PG_VISIBLE_TO_PRINCIPAL}`,
      [p.workspaceId, p.userId, alertId],
    );
    return rows[0];
  }

  async alert(alertId: string) {
    const { rows } = await this.pool.query<AlertRow>(`SELECT ${PG_ALERT_COLUMNS} FROM alerts a WHERE a.id = $1`, [alertId]);
    return rows[0];
  }

  async readContext(userId: string, channelId: string, alertIds: string[]): Promise<ReadContext> {
    const [exceptionRows, attachmentRows, watermark] = await Promise.all([
      this.pool.query<{ alertId: string; seq: number; isRead: boolean }>(
        `SELECT alert_id AS "alertId", seq, is_read AS "isRead" FROM read_exceptions WHERE user_id = $1 AND alert_id = ANY($2::text[])`,
        [userId, alertIds],
      ),
      this.pool.query<AttachmentRow>(`SELECT ${PG_ATTACHMENT_COLUMNS} FROM alert_attachments WHERE alert_id = ANY($1::text[]) ORDER BY alert_id, position`, [alertIds]),
      this.watermark(this.pool, userId, channelId),
    ]);
    const exceptions: ReadContext['exceptions'] = new Map();
    for (const e of exceptionRows.rows) exceptions.set(e.alertId, { seq: e.seq, isRead: e.isRead });
    const attachments: ReadContext['attachments'] = new Map();
    for (const a of attachmentRows.rows) {
      const list = attachments.get(a.alertId);
      if (list) list.push(a);
      else attachments.set(a.alertId, [a]);
    }
    return { watermark, exceptions, attachments };
  }

  async setRead(userId: string, alert: Pick<AlertRow, 'id' | 'channelId' | 'seq'>, isRead: boolean) {
    const coveredByWatermark = alert.seq <= (await this.watermark(this.pool, userId, alert.channelId));
    if (isRead === coveredByWatermark) {
      await this.pool.query('DELETE FROM read_exceptions WHERE user_id = $1 AND alert_id = $2', [userId, alert.id]);
    } else {
      await this.pool.query(
        `INSERT INTO read_exceptions (user_id, alert_id, channel_id, seq, is_read) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id, alert_id) DO UPDATE SET seq = excluded.seq, is_read = excluded.is_read`,
        [userId, alert.id, alert.channelId, alert.seq, isRead],
      );
    }
  }

  /**
   * One transaction: every channel's watermark moves to its last sequence number (nothing above it,
   * so nothing gone above it) and its exceptions go, or none. A channel that never had an alert
   * gets no mark, as on SQLite.
   */
  async markAllRead(userId: string, channelIds: string[], now: number) {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO read_marks (user_id, channel_id, watermark_seq, gone_above, updated_at)
           SELECT $1, channel_id, seq_max, 0, $2 FROM channel_stats WHERE channel_id = ANY($3::text[]) AND seq_max > 0
         ON CONFLICT (user_id, channel_id) DO UPDATE SET watermark_seq = excluded.watermark_seq, gone_above = 0, updated_at = excluded.updated_at`,
        [userId, now, channelIds],
      );
      await client.query('DELETE FROM read_exceptions WHERE user_id = $1 AND channel_id = ANY($2::text[])', [userId, channelIds]);
    });
  }

  private async watermark(q: pg.Pool | pg.PoolClient, userId: string, channelId: string): Promise<number> {
    const { rows } = await q.query<{ watermark: number }>('SELECT watermark_seq AS watermark FROM read_marks WHERE user_id = $1 AND channel_id = $2', [userId, channelId]);
    return rows[0]?.watermark ?? 0;
  }
}
