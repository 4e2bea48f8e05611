import type { AlertRow, AttachmentRow, ChannelPage, PageQuery, ReadContext } from '../../../domain/alert-store.js';
import { ALERT_ROW_KEYS, ALERT_SELECT, alertRowAt, ATTACHMENT_ROW_KEYS, channelRecordOf, columnName, type ChannelJoinRow } from '../../shared/alert-columns.js';
import { CHANNEL_COLUMNS, emptyReadContext, PAGE_SHAPES, pageFilterSql, pageKey, pageShapeOf, VISIBLE_TO_PRINCIPAL } from '../../shared/alert-reads.js';
import type { ChannelPageReader, PageParams, PageShape, PrincipalParams } from '../../shared/alert-reads.js';
import { perEngine, type Statement } from '../../shared/statement.js';
import type { PgExecutor } from '../executor.js';

/**
 * Why PostgreSQL alone: a page was the channel, the rows, the user's read state and the
 * attachments, four or five statements, each a few µs in process on SQLite but on PostgreSQL a
 * round trip, a pool connection and a statement's fixed cost on the server. Here it is one: the
 * visible channel with the user's watermark and whether they have exceptions there (`ch`, one row,
 * so a channel without alerts still answers), and after it (a lateral join on `ch`) the page's rows
 * with their attachments (json_agg, in position order) and, only when there are exceptions, each
 * row's exception. Folding the channel in used to cost more than the round trip it saved, as the
 * planner did not know the channel; the statement is now kept prepared, and its plan made without
 * the values is checked to be one index range of the channel (test/pg/prepared-plans.test.ts).
 */
const CHANNEL_STATE = `SELECT ${CHANNEL_COLUMNS},
    (SELECT rm.watermark_seq FROM read_marks rm WHERE rm.user_id = :userId AND rm.channel_id = c.id) AS watermark,
    EXISTS (SELECT 1 FROM read_exceptions e WHERE e.user_id = :userId AND e.channel_id = c.id) AS "hasExceptions"
  FROM channels c LEFT JOIN discord_links dl ON dl.channel_id = c.id
  WHERE (c.id = :ref OR c.slug = :ref) AND ${VISIBLE_TO_PRINCIPAL}`;

/** The attachment row as JSON with the row's keys: numbers stay JSON numbers, which JSON.parse gives back as the row's numbers. */
const ATTACHMENT_JSON = `json_build_object(${ATTACHMENT_ROW_KEYS.map((key) => `'${key}', t.${columnName(key)}`).join(', ')})`;

/** The page's trailing columns after the alert's: its attachments, its exception's seq and read flag. */
const PAGE_EXTRAS = ['attachments', 'exceptionSeq', 'exceptionIsRead'];
/**
 * One NULL per column of CHANNEL_STATE (CHANNEL_COLUMNS lists plain columns, then the watermark and
 * the exceptions flag): the alert rows' placeholders for them. A miscount fails every page at once.
 */
const STATE_NULLS = Array.from({ length: CHANNEL_COLUMNS.split(',').length + 2 }, () => 'NULL').join(', ');
const ALERT_NULLS = Array.from({ length: ALERT_ROW_KEYS.length + PAGE_EXTRAS.length }, () => 'NULL').join(', ');

/**
 * One row with the channel's state (`ch`, its alert columns NULL), then the page's rows (the alert's
 * columns ALERT_ROW_KEYS, its attachments, its exception's seq and read flag; the state's columns
 * NULL). The state comes once rather than on each of the 50 rows: 12 columns fewer on 49 rows saved
 * 50–110 µs of the node's CPU and 30–40 µs of the server's a page (docs/benchmarks.md).
 */
function pageSql(conditions: string[], order: 'ASC' | 'DESC'): string {
  // No plan of this statement knows the channel (it is found here, from the reference). Written as
  // `a.channel_id = ch.id ORDER BY a.id`, a database of one big channel and a small one was planned
  // as a walk of the primary key filtered by channel: a page of the small channel read the big one's
  // every alert. As a range with the order (channel_id, id), only a channel index gives that order
  // without a sort, whatever the statistics (test/pg/prepared-plans.test.ts, both databases).
  const where = ['a.channel_id >= ch.id AND a.channel_id <= ch.id', ...conditions].join(' AND ');
  const exception = (column: string) => `CASE WHEN ch."hasExceptions" THEN (SELECT e.${column} FROM read_exceptions e WHERE e.user_id = :userId AND e.alert_id = a.id) END`;
  return `WITH ch AS MATERIALIZED (${CHANNEL_STATE})
  SELECT ch.*, ${ALERT_NULLS} FROM ch
  UNION ALL (SELECT ${STATE_NULLS}, p.* FROM ch CROSS JOIN LATERAL (
    SELECT ${ALERT_SELECT},
      (SELECT json_agg(${ATTACHMENT_JSON} ORDER BY t.position) FROM alert_attachments t WHERE t.alert_id = a.id) AS attachments,
      ${exception('seq')} AS "exceptionSeq", ${exception('is_read')} AS "exceptionIsRead"
    FROM alerts a WHERE ${where} ORDER BY a.channel_id ${order}, a.id ${order} LIMIT :limit) p)`;
}

type PageRowParams = Omit<PageParams, 'channelId'> & PrincipalParams & { ref: string };

/**
 * One statement per filter combination, kept prepared (planned once per connection: planning cost
 * more than running, docs/benchmarks.md), except where a plan made without the values may not be
 * one index range in id order (test/pg/prepared-plans.test.ts): the status filter (no one index
 * serves its three values in id order), a page bounded on both sides, and a level within a thread.
 */
const PAGES = new Map<string, Statement<PageRowParams, unknown>>();
const preparable = (shape: PageShape) => !shape.status && !(shape.cursor && shape.after) && !(shape.thread && shape.level);
for (const shape of PAGE_SHAPES) {
  const { conditions: shared, order } = pageFilterSql(shape);
  // Where (channel_id, id) is the index, a bound on id is spelled as one on the pair (the same rows,
  // the channel being fixed): a plan made without the values could otherwise walk the primary key
  // from the bound and filter by channel, which reads the whole table below it for a small channel.
  const channelBound = (c: string) => c.replace(/^a\.id ([<>]) :(\w+)$/, '(a.channel_id, a.id) $1 (ch.id, :$2)');
  const conditions = shape.level || shape.thread ? shared : shared.map(channelBound);
  PAGES.set(pageKey(shape), perEngine({ sqlite: null, pg: pageSql(conditions, order) }, { prepared: preparable(shape) }));
}

/** Every page statement, prepared or not: the plan tests read each (test/pg/prepared-plans.test.ts). */
export const pgPageStatements = (): Statement<PageRowParams, unknown>[] => [...PAGES.values()];

const ALERT_COLUMN_COUNT = ALERT_ROW_KEYS.length;

/** The read API's channel page on PostgreSQL in one round trip (see CHANNEL_STATE). */
export class PgChannelPages implements ChannelPageReader {
  constructor(private readonly database: PgExecutor) {}

  async channelPage(principal: PrincipalParams, ref: string, query: Omit<PageQuery, 'channelId'>): Promise<ChannelPage | undefined> {
    // The statement finds the channel itself (`ch.id`): the shape's channel id is not a parameter of it.
    const { shape, params } = pageShapeOf({ ...query, channelId: '' });
    // Arrays, not objects: the driver builds no object per row, and each AlertRow is one literal (alertRowAt).
    const { rows: found, names } = await this.database.arrays(PAGES.get(pageKey(shape))!, { ...params, userId: principal.userId, workspaceId: principal.workspaceId, ref });
    if (found.length === 0) return undefined;
    // The channel's columns come first, as many as the row has beyond the alert's. Its row is the one
    // without an alert id (the first, as the UNION ALL is written); the page's rows follow in order.
    const stateColumns = names.length - ALERT_COLUMN_COUNT - PAGE_EXTRAS.length;
    const stateAt = found.findIndex((raw) => raw[stateColumns] === null);
    const stateRow = found[stateAt]!;
    const state: Record<string, unknown> = {};
    for (let k = 0; k < stateColumns; k++) state[names[k]!] = stateRow[k];
    const channel = channelRecordOf(state as unknown as ChannelJoinRow);
    const context: ReadContext = { watermark: (state.watermark as number | null) ?? 0, exceptions: new Map(), attachments: new Map() };
    const attachmentsAt = stateColumns + ALERT_COLUMN_COUNT;
    const rows: AlertRow[] = [];
    for (let i = 0; i < found.length; i++) {
      if (i === stateAt) continue;
      const raw = found[i]!;
      const row = alertRowAt(raw, stateColumns);
      rows.push(row);
      const attachments = raw[attachmentsAt] as AttachmentRow[] | null;
      const exceptionSeq = raw[attachmentsAt + 1] as number | null;
      if (exceptionSeq !== null) context.exceptions.set(row.id, { seq: exceptionSeq, isRead: raw[attachmentsAt + 2] === true });
      if (attachments !== null) context.attachments.set(row.id, attachments);
    }
    // As the shared reader answers a page without alerts (src/db/shared/alert-reads.ts).
    if (rows.length === 0) return { channel, rows, context: emptyReadContext() };
    return { channel, rows, context };
  }
}
