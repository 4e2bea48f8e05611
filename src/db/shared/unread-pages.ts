import type { AlertRow, UnreadPageQuery } from '../../domain/alert-store.js';
import { ALERT_SELECT } from './alert-columns.js';
import { byDialect, type Statement } from './statement.js';

/**
 * The unread-only feed by index (docs/decisions.md, "Unread-only feed"): newest first by id, like
 * every feed, while read state is a watermark over `seq`. Rows whose id order and seq order agree
 * (`out_of_order` false, kept by the triggers of migrations 0027 / pg 0020) sort alike both ways,
 * so the unread ones among them are exactly those with an id above the watermark's boundary (the
 * in-order row holding the largest seq at or below the watermark): one range of (channel_id, id),
 * read newest first and stopped after `limit` rows, whatever the user's lag. The out-of-order rows
 * above the watermark, and the user's unread exceptions at or below it, come from their own index
 * ranges; rows the user read as exceptions above the watermark are skipped (one key look-up each).
 */
/** The user's watermark in the channel (0: never marked read). */
const WATERMARK = `COALESCE((SELECT watermark_seq FROM read_marks WHERE user_id = :userId AND channel_id = :channelId), 0)`;
/** The in-order row holding the largest seq at or below the watermark; '' (below every id) when there is none. */
const BOUNDARY = `COALESCE((SELECT x.id FROM alerts x WHERE x.channel_id = :channelId AND x.out_of_order = FALSE AND x.seq <= ${WATERMARK}
  ORDER BY x.seq DESC LIMIT 1), '')`;

interface FirstPageParams {
  userId: string;
  channelId: string;
  limit: number;
}
type OlderPageParams = FirstPageParams & { cursor: string };

const NOT_READ_AS_EXCEPTION = `NOT EXISTS (SELECT 1 FROM read_exceptions e
  WHERE e.user_id = :userId AND e.alert_id = u.id AND e.seq = u.seq AND e.is_read = TRUE)`;

/** With and without a cursor: an `id <` bound that is always true would still cost SQLite its range on the id index. */
const pageStatement = <P extends FirstPageParams>(withCursor: boolean) =>
  byDialect<P, AlertRow>((dialect) => {
    const below = (alias: string) => (withCursor ? `AND ${alias}.id < :cursor` : '');
    // SQLite could take the read-order index for `seq >` and sort every unread row; the id range is the constant-work path.
    const byId = dialect.engine === 'sqlite' ? 'INDEXED BY alerts_channel_id_idx' : '';
    return `SELECT ${ALERT_SELECT} FROM alerts a WHERE a.id IN (
      SELECT id FROM (SELECT u.id FROM alerts u ${byId}
        WHERE u.channel_id = :channelId AND u.id > ${BOUNDARY} ${below('u')} AND u.out_of_order = FALSE AND u.seq > ${WATERMARK}
          AND ${NOT_READ_AS_EXCEPTION}
        ORDER BY u.id DESC LIMIT :limit) AS in_order
      UNION ALL
      SELECT id FROM (SELECT u.id FROM alerts u
        WHERE u.channel_id = :channelId AND u.out_of_order = TRUE AND u.seq > ${WATERMARK} ${below('u')} AND ${NOT_READ_AS_EXCEPTION}
        ORDER BY u.id DESC LIMIT :limit) AS moved
      UNION ALL
      SELECT u.id FROM read_exceptions e JOIN alerts u ON u.id = e.alert_id AND u.seq = e.seq
        WHERE e.user_id = :userId AND e.channel_id = :channelId AND e.is_read = FALSE AND e.seq <= ${WATERMARK} ${below('u')}
    ) ORDER BY a.id DESC LIMIT :limit`;
  });

const FIRST_PAGE = pageStatement<FirstPageParams>(false);
const OLDER_PAGE = pageStatement<OlderPageParams>(true);

/** The statement for a query (first page or older) and its parameters. */
export function unreadPageOf(userId: string, q: UnreadPageQuery): { stmt: Statement<object, AlertRow>; params: object } {
  const params: FirstPageParams = { userId, channelId: q.channelId, limit: q.limit };
  return q.cursor === undefined ? { stmt: FIRST_PAGE, params } : { stmt: OLDER_PAGE, params: { ...params, cursor: q.cursor } };
}

/** The statements, for the bench's EXPLAIN (the plan is the evidence of constant work). */
export const UNREAD_PAGE_STATEMENTS = { first: FIRST_PAGE, older: OLDER_PAGE };
