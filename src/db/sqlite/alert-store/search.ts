import type Database from 'better-sqlite3';
import type { AlertSearch, SearchHighlights, SearchHit, SearchQuery, SearchTermInput } from '../../../domain/alert-store.js';
import { AppError, type ValidationIssue } from '../../../domain/errors.js';
import { ALERT_COLUMNS } from './rows.js';
import type { SearchIndexer } from './search-indexer.js';
import { ELLIPSIS, MARK_CLOSE as CLOSE, MARK_OPEN as OPEN, unmark } from '../../shared/search-marks.js';

/**
 * The index's MATCH expression: each term becomes one quoted string (internal
 * quotes doubled), which FTS5 reads as a phrase of plain tokens — never as an
 * operator, a column filter or a parenthesis — followed by ` *` for a prefix.
 * Juxtaposed strings are ANDed. Exported for its tests.
 */
export function toMatchExpression(terms: readonly SearchTermInput[]): string {
  return terms.map((t) => `"${t.text.replaceAll('"', '""')}"${t.prefix ? ' *' : ''}`).join(' ');
}

const SNIPPET_TOKENS = 16;

/** Above any rowid SQLite hands out in practice; the first page has no cursor. */
const NO_CURSOR = Number.MAX_SAFE_INTEGER;

interface HighlightParams {
  match: string;
  ids: string;
  channels: string;
}

interface HighlightSqlRow {
  alertId: string;
  title: string;
  body: string;
  actor: string;
  rawTitle: string;
  rawBody: string;
  rawActor: string;
}

/**
 * Full-text search over the FTS5 table `alerts_fts` (migration 0007): its
 * content is the view `alerts_search_source`; triggers on `alerts` keep it in
 * step with every update and delete, whoever runs them, and new alerts are
 * indexed by the SearchIndexer, which every search first brings up to date
 * (migration 0011).
 *
 * The search key is the alert's rowid. It grows with insertion order, and
 * an alert keeps its rowid (UPDATE keeps it; VACUUM and VACUUM INTO copy the
 * table with rowids preserved), which is what the index is keyed by too.
 * Newest first by rowid is the order FTS5 produces natively (descending
 * rowid scan of the doclists), so a page costs a walk from the cursor down
 * to `limit` visible matches, not a sort of every match.
 */
export class SqliteAlertSearch implements AlertSearch {
  private readonly statements = new Map<string, Database.Statement<Record<string, unknown>, SearchHit>>();
  private readonly highlightStmt: Database.Statement<HighlightParams, HighlightSqlRow>;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly indexer: SearchIndexer,
  ) {
    // The alerts' rowids bound a range of the match walk rather than being looked up one by one:
    // FTS5 answers `rowid = ?` with MATCH at about 1 ms a row, while the ids come from one search
    // page, whose rowids are neighbours in the match order, so the range holds little more than
    // those alerts. Walked newest first, as search() does: FTS5 starts an ascending walk with a
    // lower bound several times slower.
    this.highlightStmt = sqlite.prepare<HighlightParams, HighlightSqlRow>(
      `SELECT a.id AS alertId,
         highlight(alerts_fts, 0, '${OPEN}', '${CLOSE}') AS title,
         snippet(alerts_fts, 1, '${OPEN}', '${CLOSE}', '${ELLIPSIS}', ${SNIPPET_TOKENS}) AS body,
         highlight(alerts_fts, 2, '${OPEN}', '${CLOSE}') AS actor,
         f.title AS rawTitle, f.body AS rawBody, f.actor AS rawActor
       FROM alerts_fts f CROSS JOIN alerts a ON a.rowid = f.rowid
       WHERE alerts_fts MATCH @match
         AND f.rowid >= (SELECT min(rowid) FROM alerts WHERE id IN (SELECT value FROM json_each(@ids)))
         AND f.rowid <= (SELECT max(rowid) FROM alerts WHERE id IN (SELECT value FROM json_each(@ids)))
         AND a.id IN (SELECT value FROM json_each(@ids))
         AND a.channel_id IN (SELECT value FROM json_each(@channels))
       ORDER BY f.rowid DESC`,
    );
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    if (q.terms.length === 0 || q.channelIds.length === 0) return [];
    this.indexer.catchUp();
    return unreadable(() =>
      this.statement({ level: q.level !== undefined, status: q.status !== undefined, thread: q.threadId !== undefined, tag: q.tag !== undefined }).all({
        match: toMatchExpression(q.terms),
        before: q.before ?? NO_CURSOR,
        channels: JSON.stringify(q.channelIds),
        level: q.level ?? null,
        statuses: JSON.stringify(q.status ?? []),
        threadId: q.threadId ?? null,
        tag: q.tag ?? null,
        limit: q.limit,
      }),
    );
  }

  async highlights(terms: readonly SearchTermInput[], alertIds: readonly string[], channelIds: readonly string[]): Promise<SearchHighlights[]> {
    if (terms.length === 0 || alertIds.length === 0 || channelIds.length === 0) return [];
    this.indexer.catchUp();
    const rows = unreadable(() => this.highlightStmt.all({ match: toMatchExpression(terms), ids: JSON.stringify(alertIds), channels: JSON.stringify(channelIds) }));
    const order = new Map(alertIds.map((id, i) => [id, i]));
    rows.sort((x, y) => order.get(x.alertId)! - order.get(y.alertId)!);
    return rows.map((r) => ({
      alertId: r.alertId,
      title: unmark(r.title, r.rawTitle),
      body: unmark(r.body, r.rawBody),
      actor: unmark(r.actor, r.rawActor),
    }));
  }

  /**
   * CROSS JOIN pins the index as the outer loop: driving from the alerts
   * table instead (a channel filter looks selective to the planner) would
   * read every alert of the channels and sort them.
   */
  private statement(filters: { level: boolean; status: boolean; thread: boolean; tag: boolean }) {
    const key = JSON.stringify(filters);
    let stmt = this.statements.get(key);
    if (!stmt) {
      stmt = this.sqlite.prepare<Record<string, unknown>, SearchHit>(
        `SELECT ${ALERT_COLUMNS}, f.rowid AS searchKey
         FROM alerts_fts f CROSS JOIN alerts a ON a.rowid = f.rowid
         WHERE alerts_fts MATCH @match AND f.rowid < @before
           AND a.channel_id IN (SELECT value FROM json_each(@channels))
           ${filters.level ? "AND a.kind = 'standard' AND a.level = @level" : ''}
           ${filters.status ? 'AND a.status IN (SELECT value FROM json_each(@statuses))' : ''}
           ${filters.thread ? 'AND a.thread_id = @threadId' : ''}
           ${filters.tag ? 'AND a.tags_json IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(a.tags_json) WHERE value = @tag)' : ''}
         ORDER BY f.rowid DESC LIMIT @limit`,
      );
      this.statements.set(key, stmt);
    }
    return stmt;
  }
}

/**
 * Defence in depth: toMatchExpression only emits quoted strings, so FTS5
 * should never reject one; if it ever does, the client gets a 400 about its
 * query rather than a 500.
 */
function unreadable<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof Error && /^fts5: /.test(err.message)) {
      const issue: ValidationIssue = { code: 'invalid_value', message: 'q could not be read as search words', path: ['q'] };
      throw new AppError('invalid-query', 'q could not be read as search words', { details: [issue] });
    }
    throw err;
  }
}
