import type { AlertRow, AttachmentRow, ChannelPage, PageQuery, ReadContext } from '../../../domain/alert-store.js';
import { ALERT_ROW_KEYS, ALERT_SELECT, alertRowOfArray, ATTACHMENT_ROW_KEYS, channelRecordOf, columnName, type ChannelJoinRow } from '../../shared/alert-columns.js';
import { CHANNEL_COLUMNS, emptyReadContext, PAGE_SHAPES, pageFilterSql, pageKey, pageShapeOf, VISIBLE_TO_PRINCIPAL } from '../../shared/alert-reads.js';
import type { ChannelPageReader, PageParams, PageShape, PrincipalParams } from '../../shared/alert-reads.js';
import { perEngine, statement, type Statement } from '../../shared/statement.js';
import type { PgExecutor } from '../executor.js';

/**
 * Why PostgreSQL alone: a page was the channel, the rows, the user's read state and the
 * attachments, four or five statements, each a few µs in process on SQLite but on PostgreSQL a
 * round trip, a pool connection and a statement's fixed cost on the server. Here they are two:
 * the visible channel with the user's watermark and whether they have exceptions there, then the
 * rows with their attachments (json_agg, in position order) and, only when there are exceptions,
 * each row's exception. The page stays a statement of its own, planned for a known channel id: a
 * single statement that took the id from the channel it finds was slower here, in planning and in
 * execution (the planner does not know the channel, and walks the primary key for a small one).
 */
const CHANNEL_STATE = statement<PrincipalParams & { ref: string }, ChannelJoinRow & { watermark: number | null; hasExceptions: boolean }>(
  `SELECT ${CHANNEL_COLUMNS},
          (SELECT rm.watermark_seq FROM read_marks rm WHERE rm.user_id = :userId AND rm.channel_id = c.id) AS watermark,
          EXISTS (SELECT 1 FROM read_exceptions e WHERE e.user_id = :userId AND e.channel_id = c.id) AS "hasExceptions"
   FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
   WHERE (c.id = :ref OR c.slug = :ref) AND ${VISIBLE_TO_PRINCIPAL}`,
  { booleans: ['hasExceptions'], prepared: true },
);

/** A page row's columns after the alert's own (ALERT_ROW_KEYS): its attachments, then (with exceptions) the user's exception. */
const ATTACHMENTS = ALERT_ROW_KEYS.length;
const EXCEPTION_SEQ = ATTACHMENTS + 1;
const EXCEPTION_IS_READ = ATTACHMENTS + 2;

/** The attachment row as JSON with the row's keys: numbers stay JSON numbers, which JSON.parse gives back as the row's numbers. */
const ATTACHMENT_JSON = `json_build_object(${ATTACHMENT_ROW_KEYS.map((key) => `'${key}', t.${columnName(key)}`).join(', ')})`;

function pageSql(conditions: string[], order: 'ASC' | 'DESC', withExceptions: boolean): string {
  const where = ['a.channel_id = :channelId', ...conditions].join(' AND ');
  const exception = (column: string) => `(SELECT e.${column} FROM read_exceptions e WHERE e.user_id = :userId AND e.alert_id = a.id)`;
  return `SELECT ${ALERT_SELECT},
    (SELECT json_agg(${ATTACHMENT_JSON} ORDER BY t.position) FROM alert_attachments t WHERE t.alert_id = a.id) AS attachments
    ${withExceptions ? `, ${exception('seq')} AS "exceptionSeq", ${exception('is_read')} AS "exceptionIsRead"` : ''}
    FROM alerts a WHERE ${where} ORDER BY a.id ${order} LIMIT :limit`;
}

type PageRowParams = PageParams & { userId: string };

/**
 * Two statements per filter combination: without and with the user's exceptions. Kept prepared
 * (planned once per connection: planning cost more than running, docs/benchmarks.md), except where
 * a plan made without the values may not be one index range in id order (test/pg/prepared-plans.test.ts):
 * the status filter (no one index serves its three values in id order), a page bounded on both
 * sides, and a level within a thread.
 */
const PAGES = new Map<string, Statement<PageRowParams, unknown>>();
const preparable = (shape: PageShape) => !shape.status && !(shape.cursor && shape.after) && !(shape.thread && shape.level);
for (const shape of PAGE_SHAPES) {
  const { conditions: shared, order } = pageFilterSql(shape);
  // Where (channel_id, id) is the index, a bound on id is spelled as one on the pair (the same rows,
  // the channel being fixed): a plan made without the values could otherwise walk the primary key
  // from the bound and filter by channel, which reads the whole table below it for a small channel.
  const conditions = shape.level || shape.thread ? shared : shared.map((c) => c.replace(/^a\.id ([<>]) :(\w+)$/, '(a.channel_id, a.id) $1 (:channelId, :$2)'));
  for (const withExceptions of [false, true]) {
    PAGES.set(`${pageKey(shape)}${withExceptions ? 'e' : ''}`, perEngine({ sqlite: null, pg: pageSql(conditions, order, withExceptions) }, { prepared: preparable(shape) }));
  }
}

/** The read API's channel page on PostgreSQL in two round trips (see CHANNEL_STATE). */
export class PgChannelPages implements ChannelPageReader {
  constructor(private readonly database: PgExecutor) {}

  async channelPage(principal: PrincipalParams, ref: string, query: Omit<PageQuery, 'channelId'>): Promise<ChannelPage | undefined> {
    const state = await this.database.get(CHANNEL_STATE, { userId: principal.userId, workspaceId: principal.workspaceId, ref });
    if (!state) return undefined;
    const channel = channelRecordOf(state);
    const { shape, params } = pageShapeOf({ ...query, channelId: channel.id });
    // Arrays, not objects: the driver builds no object per row, and each AlertRow is one literal (alertRowOfArray).
    const found = await this.database.arrays(PAGES.get(`${pageKey(shape)}${state.hasExceptions ? 'e' : ''}`)!, { ...params, userId: principal.userId });
    if (found.length === 0) return { channel, rows: [], context: emptyReadContext() };
    const rows = new Array<AlertRow>(found.length);
    const context: ReadContext = { watermark: state.watermark ?? 0, exceptions: new Map(), attachments: new Map() };
    for (let i = 0; i < found.length; i++) {
      const raw = found[i]!;
      const row = (rows[i] = alertRowOfArray(raw));
      const attachments = raw[ATTACHMENTS] as AttachmentRow[] | null;
      const exceptionSeq = raw[EXCEPTION_SEQ] as number | null | undefined;
      if (exceptionSeq != null) context.exceptions.set(row.id, { seq: exceptionSeq, isRead: raw[EXCEPTION_IS_READ] === true });
      if (attachments !== null) context.attachments.set(row.id, attachments);
    }
    return { channel, rows, context };
  }
}
