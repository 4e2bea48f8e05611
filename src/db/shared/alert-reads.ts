import type { AlertReads, AlertRow, AttachmentRow, ChannelPage, PageQuery, ReadContext, UnreadPageQuery } from '../../domain/alert-store.js';
import type { Principal } from '../../domain/tokens.js';
import { channelRecordOf, type ChannelJoinRow } from './alert-columns.js';
import type { SqlExecutor } from './executor.js';
import { ALERT_SELECT, ATTACHMENT_SELECT } from './alert-columns.js';
import { byDialect, statement, type Statement } from './statement.js';
import { unreadPageOf } from './unread-pages.js';
import { channelVisibleTo } from './visibility.js';

/** Visible to the principal bound as :workspaceId / :userId: its workspace, and the one rule (visibility.ts). */
export const VISIBLE_TO_PRINCIPAL = `c.workspace_id = :workspaceId AND ${channelVisibleTo(':userId')}`;

export const CHANNEL_COLUMNS = `c.id, c.name, c.slug, c.icon, c.is_private AS "isPrivate", c.webhook_token AS "webhookToken",
  dl.discord_channel_id AS "discordChannelId", dl.guild_id AS "guildId", dl.guild_name AS "guildName",
  dl.discord_channel_name AS "discordChannelName"`;

/**
 * Unread, in constant time whatever the reader's lag: the channel's sequence numbers above the
 * watermark (seq_max - watermark_seq) less those that no longer hold an alert (gone_above, kept by
 * triggers), corrected by the user's per-alert exceptions that still match their alert's number (a
 * few rows, one index range). A channel the user never marked read counts every alert
 * (channel_stats.alert_count). See docs/read-api.md "Read state". The corrections are
 * integers (CASE, not a boolean, which PostgreSQL would not add up), the total a bigint on both.
 */
const UNREAD_COUNT = `CAST(
  (CASE WHEN rm.user_id IS NULL THEN COALESCE(cs.alert_count, 0)
        ELSE COALESCE(cs.seq_max, 0) - rm.watermark_seq - rm.gone_above END)
  + (SELECT COALESCE(sum(CASE WHEN e.is_read THEN (CASE WHEN e.seq > COALESCE(rm.watermark_seq, 0) THEN -1 ELSE 0 END)
                              ELSE (CASE WHEN e.seq <= COALESCE(rm.watermark_seq, 0) THEN 1 ELSE 0 END) END), 0)
     FROM read_exceptions e JOIN alerts a ON a.id = e.alert_id AND a.seq = e.seq
     WHERE e.user_id = :userId AND e.channel_id = c.id)
AS BIGINT)`;

export type PrincipalParams = Pick<Principal, 'userId' | 'workspaceId'>;
type ChannelRef = { userId: string; channelId: string };

const CHANNELS = statement<PrincipalParams, ChannelJoinRow & { unread: number }>(
  `SELECT ${CHANNEL_COLUMNS}, ${UNREAD_COUNT} AS unread
   FROM channels c
   LEFT JOIN read_marks rm ON rm.user_id = :userId AND rm.channel_id = c.id
   LEFT JOIN channel_stats cs ON cs.channel_id = c.id
   LEFT JOIN discord_links dl ON dl.channel_id = c.id
   WHERE ${VISIBLE_TO_PRINCIPAL} ORDER BY c.created_at, c.id`,
  { prepared: true },
);
const CHANNEL = statement<PrincipalParams & { ref: string }, ChannelJoinRow>(
  `SELECT ${CHANNEL_COLUMNS} FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
   WHERE (c.id = :ref OR c.slug = :ref) AND ${VISIBLE_TO_PRINCIPAL}`,
);
const VISIBLE_CHANNEL_IDS = statement<PrincipalParams, { id: string }>(`SELECT c.id FROM channels c WHERE ${VISIBLE_TO_PRINCIPAL}`);
const VISIBLE_ALERT = statement<PrincipalParams & { alertId: string }, AlertRow & { channelName: string; channelSlug: string }>(
  `SELECT ${ALERT_SELECT}, c.name AS "channelName", c.slug AS "channelSlug"
   FROM alerts a JOIN channels c ON c.id = a.channel_id WHERE a.id = :alertId AND ${VISIBLE_TO_PRINCIPAL}`,
);
const ALERT = statement<{ alertId: string }, AlertRow>(`SELECT ${ALERT_SELECT} FROM alerts a WHERE a.id = :alertId`);
const WATERMARK = statement<ChannelRef, { watermark: number }>(
  'SELECT watermark_seq AS watermark FROM read_marks WHERE user_id = :userId AND channel_id = :channelId',
);
// One statement for a page's read state: most users have no exceptions in a channel, and then the per-id look-ups are skipped.
const PAGE_STATE = statement<ChannelRef, { watermark: number | null; hasExceptions: boolean }>(
  `SELECT (SELECT watermark_seq FROM read_marks WHERE user_id = :userId AND channel_id = :channelId) AS watermark,
          EXISTS (SELECT 1 FROM read_exceptions WHERE user_id = :userId AND channel_id = :channelId) AS "hasExceptions"`,
  { booleans: ['hasExceptions'] },
);
// Only this page's rows are read (an id range would also sweep in every other channel's alerts created in the same span).
const EXCEPTIONS_FOR_PAGE = byDialect<{ userId: string; alertIds: readonly string[] }, { alertId: string; seq: number; isRead: boolean }>(
  (dialect) => `SELECT alert_id AS "alertId", seq, is_read AS "isRead" FROM read_exceptions
   WHERE user_id = :userId AND alert_id IN ${dialect.listOf('alertIds', 'text')}`,
  { booleans: ['isRead'] },
);
const ATTACHMENTS_FOR_PAGE = byDialect<{ alertIds: readonly string[] }, AttachmentRow>(
  (dialect) => `SELECT ${ATTACHMENT_SELECT} FROM alert_attachments WHERE alert_id IN ${dialect.listOf('alertIds', 'text')} ORDER BY alert_id, position`,
);
const UPSERT_EXCEPTION = statement<{ userId: string; alertId: string; channelId: string; seq: number; isRead: boolean }>(
  `INSERT INTO read_exceptions (user_id, alert_id, channel_id, seq, is_read) VALUES (:userId, :alertId, :channelId, :seq, :isRead)
   ON CONFLICT (user_id, alert_id) DO UPDATE SET seq = excluded.seq, is_read = excluded.is_read`,
);
const DELETE_EXCEPTION = statement<{ userId: string; alertId: string }>('DELETE FROM read_exceptions WHERE user_id = :userId AND alert_id = :alertId');
// The watermark moves to the channel's last number: nothing above it, so nothing gone above it. A channel that never had an alert gets no mark.
const MARK_ALL = byDialect<{ userId: string; channelIds: readonly string[]; now: number }>(
  (dialect) => `INSERT INTO read_marks (user_id, channel_id, watermark_seq, gone_above, updated_at)
     SELECT CAST(:userId AS TEXT), channel_id, seq_max, 0, CAST(:now AS BIGINT) FROM channel_stats
     WHERE channel_id IN ${dialect.listOf('channelIds', 'text')} AND seq_max > 0
   ON CONFLICT (user_id, channel_id) DO UPDATE SET watermark_seq = excluded.watermark_seq, gone_above = 0, updated_at = excluded.updated_at`,
);
const CLEAR_EXCEPTIONS = byDialect<{ userId: string; channelIds: readonly string[] }>(
  (dialect) => `DELETE FROM read_exceptions WHERE user_id = :userId AND channel_id IN ${dialect.listOf('channelIds', 'text')}`,
);

/** A page's parameters: every filter bound (null when unused), each statement reads the ones it names. */
export interface PageParams {
  channelId: string;
  level: string | null;
  cursor: string | null;
  after: string | null;
  /** The status filter as three values (a shorter list repeats its first): one statement shape for any list. */
  status1: string | null;
  status2: string | null;
  status3: string | null;
  threadId: string | null;
  limit: number;
}

const PAGE_FILTERS = ['level', 'cursor', 'after', 'status', 'thread', 'asc'] as const;
/** Which filters a page query uses: one statement text per combination. */
export type PageShape = Record<(typeof PAGE_FILTERS)[number], boolean>;
/** The shape's short name, e.g. `l-----` (a map key). */
export const pageKey = (shape: PageShape) => PAGE_FILTERS.map((f) => (shape[f] ? f[0] : '-')).join('');
/** Every shape there is (64), for statements built when their module loads. */
export const PAGE_SHAPES: readonly PageShape[] = Array.from(
  { length: 1 << PAGE_FILTERS.length },
  (_, bits) => Object.fromEntries(PAGE_FILTERS.map((f, i) => [f, (bits & (1 << i)) !== 0])) as PageShape,
);

/**
 * A page's conditions on `alerts a` besides its channel, and its order: an index range on (channel_id, id),
 * or on (channel_id, thread_id, id) for one thread, read in either direction. Ascending, the cursor is
 * the last row of the previous page, so it bounds from below.
 */
export function pageFilterSql(shape: PageShape): { conditions: string[]; order: 'ASC' | 'DESC' } {
  const conditions: string[] = [];
  if (shape.thread) conditions.push('a.thread_id = :threadId');
  if (shape.level) conditions.push('a.level = :level');
  if (shape.status) conditions.push('a.status IN (:status1, :status2, :status3)');
  if (shape.cursor) conditions.push(shape.asc ? 'a.id > :cursor' : 'a.id < :cursor');
  if (shape.after) conditions.push('a.id > :after');
  return { conditions, order: shape.asc ? 'ASC' : 'DESC' };
}

/** One statement per filter combination (at most 64), built when the module loads. */
const PAGES = new Map<string, Statement<PageParams, AlertRow>>();
for (const shape of PAGE_SHAPES) {
  const { conditions, order } = pageFilterSql(shape);
  const where = ['a.channel_id = :channelId', ...conditions].join(' AND ');
  PAGES.set(pageKey(shape), statement(`SELECT ${ALERT_SELECT} FROM alerts a WHERE ${where} ORDER BY a.id ${order} LIMIT :limit`));
}

/** A query's filters as a shape, and its parameters (every filter bound, null when unused). */
export function pageShapeOf(query: PageQuery): { shape: PageShape; params: PageParams } {
  const statuses = query.status ?? [];
  const shape: PageShape = {
    level: !!query.level,
    cursor: !!query.cursor,
    after: !!query.after,
    status: statuses.length > 0,
    thread: !!query.threadId,
    asc: !!query.ascending,
  };
  return {
    shape,
    params: {
      channelId: query.channelId,
      level: query.level ?? null,
      cursor: query.cursor ?? null,
      after: query.after ?? null,
      status1: statuses[0] ?? null,
      status2: statuses[1] ?? statuses[0] ?? null,
      status3: statuses[2] ?? statuses[0] ?? null,
      threadId: query.threadId ?? null,
      limit: query.limit,
    },
  };
}

/** The page statement for a query's filters, and its parameters. */
export function pageOf(query: PageQuery): { stmt: Statement<PageParams, AlertRow>; params: PageParams } {
  const { shape, params } = pageShapeOf(query);
  return { stmt: PAGES.get(pageKey(shape))!, params };
}

/** Reads a page of alerts: through the executor, or SQLite's raw-array reader (src/db/sqlite/alert-pages.ts), the read API's hot path. */
export interface AlertPageReader {
  page(query: PageQuery): Promise<AlertRow[]>;
  /** An unread-only page (src/db/shared/unread-pages.ts). */
  unreadPage(userId: string, query: UnreadPageQuery): Promise<AlertRow[]>;
}

export const emptyReadContext = (): ReadContext => ({ watermark: 0, exceptions: new Map(), attachments: new Map() });

/** Reads a channel's page with its read context at once (PostgreSQL: one statement, src/db/pg/alert-store/channel-pages.ts). */
export interface ChannelPageReader {
  channelPage(principal: PrincipalParams, ref: string, query: Omit<PageQuery, 'channelId'>): Promise<ChannelPage | undefined>;
}

/**
 * The read side of the alert store, on either engine (test/cluster/alert-reads-contract.test.ts runs
 * the same cases on both). Text compares byte-wise on both (every PostgreSQL text column is
 * COLLATE "C"), so ids and cursors order alike.
 */
export class SqlAlertReads implements AlertReads {
  private readonly pages: AlertPageReader;

  constructor(
    private readonly database: SqlExecutor,
    pages?: AlertPageReader,
    /** Without one, a channel page is its three steps in turn (SQLite, in process, loses nothing by it). */
    private readonly channelPages?: ChannelPageReader,
  ) {
    this.pages = pages ?? {
      page: (query) => {
        const { stmt, params } = pageOf(query);
        return database.all(stmt, params);
      },
      unreadPage: (userId, query) => {
        const { stmt, params } = unreadPageOf(userId, query);
        return database.all(stmt, params);
      },
    };
  }

  async visibleChannels(principal: Principal) {
    const rows = await this.database.all(CHANNELS, { userId: principal.userId, workspaceId: principal.workspaceId });
    return rows.map((row) => ({ ...channelRecordOf(row), unread: row.unread }));
  }

  async visibleChannel(principal: Principal, ref: string) {
    const row = await this.database.get(CHANNEL, { userId: principal.userId, workspaceId: principal.workspaceId, ref });
    return row && channelRecordOf(row);
  }

  async visibleChannelIds(principal: Principal) {
    const rows = await this.database.all(VISIBLE_CHANNEL_IDS, { userId: principal.userId, workspaceId: principal.workspaceId });
    return rows.map((row) => row.id);
  }

  page(query: PageQuery) {
    return this.pages.page(query);
  }

  unreadPage(userId: string, query: UnreadPageQuery) {
    return this.pages.unreadPage(userId, query);
  }

  async channelPage(principal: Principal, ref: string, query: Omit<PageQuery, 'channelId'>): Promise<ChannelPage | undefined> {
    if (this.channelPages) return this.channelPages.channelPage(principal, ref, query);
    const channel = await this.visibleChannel(principal, ref);
    if (!channel) return undefined;
    const rows = await this.page({ ...query, channelId: channel.id });
    // An empty page needs no read state (the read API never asks for it).
    const context = rows.length > 0 ? await this.readContext(principal.userId, channel.id, rows.map((row) => row.id)) : emptyReadContext();
    return { channel, rows, context };
  }

  visibleAlert(principal: Principal, alertId: string) {
    return this.database.get(VISIBLE_ALERT, { userId: principal.userId, workspaceId: principal.workspaceId, alertId });
  }

  alert(alertId: string) {
    return this.database.get(ALERT, { alertId });
  }

  async readContext(userId: string, channelId: string, alertIds: string[]): Promise<ReadContext> {
    const [state, attachmentRows] = await Promise.all([
      this.database.get(PAGE_STATE, { userId, channelId }),
      this.database.all(ATTACHMENTS_FOR_PAGE, { alertIds }),
    ]);
    const exceptions: ReadContext['exceptions'] = new Map();
    if (state?.hasExceptions) {
      for (const exception of await this.database.all(EXCEPTIONS_FOR_PAGE, { userId, alertIds })) {
        exceptions.set(exception.alertId, { seq: exception.seq, isRead: exception.isRead });
      }
    }
    const attachments: ReadContext['attachments'] = new Map();
    for (const attachment of attachmentRows) {
      const list = attachments.get(attachment.alertId);
      if (list) list.push(attachment);
      else attachments.set(attachment.alertId, [attachment]);
    }
    return { watermark: state?.watermark ?? 0, exceptions, attachments };
  }

  async setRead(userId: string, alert: Pick<AlertRow, 'id' | 'channelId' | 'seq'>, isRead: boolean) {
    const watermark = (await this.database.value(WATERMARK, { userId, channelId: alert.channelId })) ?? 0;
    const coveredByWatermark = alert.seq <= watermark;
    if (isRead === coveredByWatermark) await this.database.run(DELETE_EXCEPTION, { userId, alertId: alert.id });
    else await this.database.run(UPSERT_EXCEPTION, { userId, alertId: alert.id, channelId: alert.channelId, seq: alert.seq, isRead });
  }

  /** One transaction: every channel's watermark moves to its last number and its exceptions go, or none. */
  async markAllRead(userId: string, channelIds: string[], now: number) {
    await this.database.transaction(function* (tx) {
      yield* tx.run(MARK_ALL, { userId, channelIds, now });
      yield* tx.run(CLEAR_EXCEPTIONS, { userId, channelIds });
    });
  }
}
