import type { AlertRow, AttachmentRow, ChannelPage, PageQuery, ReadContext } from '../../../domain/alert-store.js';
import { ALERT_ROW_KEYS, ALERT_SELECT, ATTACHMENT_ROW_KEYS, channelRecordOf } from '../../shared/alert-columns.js';
import { emptyReadContext, PAGE_SHAPES, pageFilterSql, pageKey, pageShapeOf, VISIBLE_TO_PRINCIPAL } from '../../shared/alert-reads.js';
import type { ChannelPageReader, PageParams, PrincipalParams } from '../../shared/alert-reads.js';
import { alertAttachments } from '../../shared/schema/alerts.js';
import { perEngine, type Statement } from '../../shared/statement.js';
import type { PgExecutor } from '../executor.js';

/** One row of a channel page: the channel (and the user's watermark) on every row, an alert's columns, its exception and attachments. */
type ChannelPageRow = AlertRow & {
  chId: string;
  chName: string;
  chSlug: string;
  chIcon: string;
  chIsPrivate: boolean;
  chWebhookToken: string;
  chDiscordChannelId: string | null;
  chGuildId: string | null;
  chGuildName: string | null;
  chDiscordChannelName: string | null;
  watermark: number | null;
  exceptionSeq: number | null;
  exceptionIsRead: boolean | null;
  attachments: AttachmentRow[] | null;
};

/** The attachment row as JSON with the row's keys: numbers stay JSON numbers, which JSON.parse gives back as the row's numbers. */
const ATTACHMENT_JSON = `json_build_object(${ATTACHMENT_ROW_KEYS.map((key) => `'${key}', t.${alertAttachments[key].name}`).join(', ')})`;

/**
 * Why PostgreSQL alone: the channel, the page, the watermark, the exceptions and the attachments
 * are five statements on SQLite, each a few µs in process; on PostgreSQL each is a round trip to
 * the server and a pool connection, which cost the read API about half its throughput. Here they
 * are one statement: the visible channel (no row at all when it is not visible), the page's rows
 * read from the same index range as the shared page statement (alert-reads.ts), each with the
 * user's exception and its attachments (json_agg, in position order). An empty page is one row
 * whose alert columns are all NULL.
 *
 * The page is read for `:channelId`, the caller's guess of the channel's id, bound as a value: the
 * planner then knows which channel it reads (its statistics), as for the shared statement. Taken
 * from the row just found instead, the id is unknown when planning, and for a small channel the
 * planner walks the whole primary key backwards. The rows join the channel found on its id, so a
 * wrong guess returns the channel without rows, and the caller asks again with its id.
 */
function channelPageSql(conditions: string[], order: 'ASC' | 'DESC'): string {
  const where = ['a.channel_id = :channelId', ...conditions].join(' AND ');
  return `WITH ch AS (
    SELECT c.id, c.name, c.slug, c.icon, c.is_private, c.webhook_token,
           dl.discord_channel_id, dl.guild_id, dl.guild_name, dl.discord_channel_name,
           (SELECT rm.watermark_seq FROM read_marks rm WHERE rm.user_id = :userId AND rm.channel_id = c.id) AS watermark
    FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
    WHERE (c.id = :ref OR c.slug = :ref) AND ${VISIBLE_TO_PRINCIPAL}
    LIMIT 1
  ), p AS (
    SELECT ${ALERT_SELECT} FROM alerts a WHERE ${where} ORDER BY a.id ${order} LIMIT :limit
  )
  SELECT ch.id AS "chId", ch.name AS "chName", ch.slug AS "chSlug", ch.icon AS "chIcon", ch.is_private AS "chIsPrivate",
         ch.webhook_token AS "chWebhookToken", ch.discord_channel_id AS "chDiscordChannelId", ch.guild_id AS "chGuildId",
         ch.guild_name AS "chGuildName", ch.discord_channel_name AS "chDiscordChannelName", ch.watermark AS "watermark",
         p.*, e.seq AS "exceptionSeq", e.is_read AS "exceptionIsRead",
         (SELECT json_agg(${ATTACHMENT_JSON} ORDER BY t.position) FROM alert_attachments t WHERE t.alert_id = p."id") AS attachments
  FROM ch
  LEFT JOIN p ON p."channelId" = ch.id
  LEFT JOIN read_exceptions e ON e.user_id = :userId AND e.alert_id = p."id"
  ORDER BY p."id" ${order}`;
}

type ChannelPageParams = PrincipalParams & PageParams & { ref: string };

/** One statement per filter combination, as the shared page statements. */
const CHANNEL_PAGES = new Map<string, Statement<ChannelPageParams, ChannelPageRow>>();
for (const shape of PAGE_SHAPES) {
  const { conditions, order } = pageFilterSql(shape);
  CHANNEL_PAGES.set(pageKey(shape), perEngine({ sqlite: null, pg: channelPageSql(conditions, order) }));
}

/** Slugs remembered per node (a hint only: the statement checks it); past this many, forgotten all at once. */
const MAX_REMEMBERED_REFS = 10_000;

/** The read API's channel page on PostgreSQL in one round trip (see channelPageSql). */
export class PgChannelPages implements ChannelPageReader {
  /** The channel id a ref (a slug) last named: the guess of the next page of that ref. */
  private readonly idOfRef = new Map<string, string>();

  constructor(private readonly database: PgExecutor) {}

  async channelPage(principal: PrincipalParams, ref: string, query: Omit<PageQuery, 'channelId'>): Promise<ChannelPage | undefined> {
    const { shape, params } = pageShapeOf({ ...query, channelId: this.idOfRef.get(ref) ?? ref });
    const stmt = CHANNEL_PAGES.get(pageKey(shape))!;
    const bind = { ...params, userId: principal.userId, workspaceId: principal.workspaceId, ref };
    let found = await this.database.all(stmt, bind);
    // A slug (or one that moved to another channel): the channel's id is now known, and asked for
    // with a second round trip, once per slug and node. Twice only if the slug moves meanwhile.
    for (let attempt = 1; found[0] && found[0].chId !== bind.channelId; attempt++) {
      if (attempt > 3) throw new Error(`channel ${ref} kept changing its id while its page was read`);
      bind.channelId = found[0].chId;
      if (this.idOfRef.size >= MAX_REMEMBERED_REFS) this.idOfRef.clear();
      if (ref !== bind.channelId) this.idOfRef.set(ref, bind.channelId);
      found = await this.database.all(stmt, bind);
    }
    const first = found[0];
    if (!first) return undefined;
    const channel = channelRecordOf({
      id: first.chId,
      name: first.chName,
      slug: first.chSlug,
      icon: first.chIcon,
      isPrivate: first.chIsPrivate,
      webhookToken: first.chWebhookToken,
      discordChannelId: first.chDiscordChannelId,
      guildId: first.chGuildId,
      guildName: first.chGuildName,
      discordChannelName: first.chDiscordChannelName,
    });
    if (first.id === null) return { channel, rows: [], context: emptyReadContext() };
    const rows = new Array<AlertRow>(found.length);
    const context: ReadContext = { watermark: first.watermark ?? 0, exceptions: new Map(), attachments: new Map() };
    for (let i = 0; i < found.length; i++) {
      const row = found[i]!;
      rows[i] = alertRowOf(row);
      if (row.exceptionSeq !== null) context.exceptions.set(row.id, { seq: row.exceptionSeq, isRead: row.exceptionIsRead === true });
      if (row.attachments !== null) context.attachments.set(row.id, row.attachments);
    }
    return { channel, rows, context };
  }
}

/** The alert's own columns only, in the shared page statement's order: the rows are what that statement returns. */
function alertRowOf(row: ChannelPageRow): AlertRow {
  const alert: Record<string, unknown> = {};
  for (const key of ALERT_ROW_KEYS) alert[key] = row[key];
  return alert as unknown as AlertRow;
}
