import pg from 'pg';
import type { AlertSearch, HighlightedText, SearchHighlights, SearchHit, SearchQuery, SearchTermInput } from '../../../domain/alert-store.js';
import { AppError, type ValidationIssue } from '../../../domain/errors.js';
import { ELLIPSIS, MARK_CLOSE as CLOSE, MARK_OPEN as OPEN, unmark } from '../../shared/search-marks.js';
import { ALERT_SELECT } from '../../shared/alert-columns.js';

/** Above any search key handed out; the first page has no cursor. */
const NO_CURSOR = Number.MAX_SAFE_INTEGER;
const SNIPPET_TOKENS = 16;
const SYNTAX_ERROR = '42601';

/** The query's words as the database tokenizes them: `$1` texts, `$2` prefix flags. */
const QUERY = 'alertbridge_search_query($1::text[], $2::boolean[])';

/**
 * A token of a stored text: [start, end) UTF-16 offsets and its folded form. Runs of letters,
 * decimal digits and private-use characters, as alertbridge_search_words splits (the Latin
 * combining accents it drops belong to their word). The folding itself is asked of the database,
 * so a highlight marks exactly the words the index matched.
 */
const TOKEN = /(?:[\p{L}\p{Nd}\u{E000}-\u{F8FF}]|[\u0300-\u036f])+/gu;
interface Token {
  start: number;
  end: number;
  norm: string;
}
/** A term as the database folded it. */
interface FoldedTerm {
  words: string[];
  prefix: boolean;
}
/** A found term in one part: the token position of its first word and how many words it has. */
interface Instance {
  term: number;
  pos: number;
  size: number;
}
/** Overlapping instances made one marked span, [first, last] token positions. */
interface Span {
  first: number;
  last: number;
}

interface HighlightSqlRow {
  alertId: string;
  title: string;
  body: string;
  actor: string;
}

/**
 * Full-text search on PostgreSQL, behind the interface the SQLite FTS5 store implements
 * (src/db/sqlite/alert-store/search.ts; test/cluster/search-contract.test.ts runs the same queries on
 * both). The index is the stored generated column `alerts.search_vector` with a GIN index
 * (drizzle-pg/0005_search.sql): computed by the write's own statement, so it is current in the
 * same transaction and no indexer runs after the commit. The query is built by the database from
 * the terms' letters and digits only (alertbridge_search_query): nothing the user types is read as
 * tsquery syntax.
 *
 * The search key is `alerts.search_key`, an identity column: it grows with insertion order and
 * never changes, like SQLite's rowid. Across nodes, keys are handed out at insert and become
 * visible at commit, so an alert committed during a page walk may land below the cursor and be
 * missed by that walk (never duplicated); a new search finds it.
 *
 * Highlights mark, in the title, a 16-word excerpt of the body and the actor, the words the query
 * matched, with FTS5's highlight() and snippet() rules (window choice included), so both engines
 * mark the same words.
 */
export class PgAlertSearch implements AlertSearch {
  constructor(private readonly pool: pg.Pool) {}

  async search(q: SearchQuery): Promise<SearchHit[]> {
    if (q.terms.length === 0 || q.channelIds.length === 0) return [];
    const values: unknown[] = [q.terms.map((t) => t.text), q.terms.map((t) => t.prefix), q.before ?? NO_CURSOR, q.channelIds, q.limit];
    const level = q.level === undefined ? '' : `AND a.kind = 'standard' AND a.level = $${values.push(q.level)}`;
    const status = q.status === undefined ? '' : `AND a.status = ANY($${values.push(q.status)}::text[])`;
    const thread = q.threadId === undefined ? '' : `AND a.thread_id = $${values.push(q.threadId)}`;
    const tag = q.tag === undefined ? '' : `AND a.tags_json IS NOT NULL AND jsonb_exists(a.tags_json::jsonb, $${values.push(q.tag)})`;
    const { rows } = await unreadable(() =>
      this.pool.query<SearchHit>(
        `SELECT ${ALERT_SELECT}, a.search_key AS "searchKey" FROM alerts a
         WHERE a.search_vector @@ ${QUERY} AND a.search_key < $3 AND a.channel_id = ANY($4::text[]) ${level} ${status} ${thread} ${tag}
         ORDER BY a.search_key DESC LIMIT $5`,
        values,
      ),
    );
    return rows;
  }

  async highlights(terms: readonly SearchTermInput[], alertIds: readonly string[], channelIds: readonly string[]): Promise<SearchHighlights[]> {
    if (terms.length === 0 || alertIds.length === 0 || channelIds.length === 0) return [];
    const { rows } = await unreadable(() =>
      this.pool.query<HighlightSqlRow>(
        `SELECT a.id AS "alertId", a.title,
           alertbridge_search_body_in_thread(
             alertbridge_search_body(a.message, a.fields_json, a.workflow_steps_json, a.workflow_error, a.link_text, a.source), a.thread_json) AS body,
           alertbridge_search_actor(a.actor_json, a.author_json) AS actor
         FROM alerts a
         WHERE a.id = ANY($3::text[]) AND a.channel_id = ANY($4::text[]) AND a.search_vector @@ ${QUERY}`,
        [terms.map((t) => t.text), terms.map((t) => t.prefix), alertIds, channelIds],
      ),
    );
    if (rows.length === 0) return [];
    const fold = await this.fold([...terms.map((t) => t.text), ...rows.flatMap((r) => [r.title, r.body, r.actor].flatMap(rawTokens).map((t) => t.text))]);
    const folded: FoldedTerm[] = terms.map((t) => ({ words: words(fold.get(t.text)), prefix: t.prefix }));
    const part = (text: string): Part => {
      const tokens = rawTokens(text).map((t) => ({ start: t.start, end: t.end, norm: fold.get(t.text) ?? '' })).filter((t) => t.norm !== '');
      return { text, tokens, found: instances(tokens, folded) };
    };
    const order = new Map(alertIds.map((id, i) => [id, i]));
    rows.sort((x, y) => order.get(x.alertId)! - order.get(y.alertId)!);
    return rows.map((r) => ({ alertId: r.alertId, title: highlight(part(r.title)), body: snippet(part(r.body), terms.length), actor: highlight(part(r.actor)) }));
  }

  /** Each text folded by the database's tokenizer (words separated by one space; '' when none). */
  private async fold(texts: string[]): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ t: string; w: string | null }>(
      'SELECT u.t, alertbridge_search_words(u.t) AS w FROM unnest($1::text[]) AS u(t)',
      [[...new Set(texts)]],
    );
    return new Map(rows.map((r) => [r.t, r.w ?? '']));
  }
}

const words = (folded: string | undefined) => (folded ?? '').split(' ').filter((w) => w !== '');

const rawTokens = (text: string) => [...text.matchAll(TOKEN)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));

/** One searched part of an alert: its text, its tokens and the instances of the query's terms in it. */
interface Part {
  text: string;
  tokens: Token[];
  found: Instance[];
}

/** Every occurrence of every term (a phrase's words side by side, its last word a prefix when asked), by position, then term. */
function instances(tokens: Token[], terms: FoldedTerm[]): Instance[] {
  const out: Instance[] = [];
  for (let pos = 0; pos < tokens.length; pos++) {
    terms.forEach((t, term) => {
      const n = t.words.length;
      if (n === 0 || pos + n > tokens.length) return;
      const hit = t.words.every((w, j) => {
        const norm = tokens[pos + j]!.norm;
        return norm === w || (t.prefix && j === n - 1 && norm.startsWith(w));
      });
      if (hit) out.push({ term, pos, size: n });
    });
  }
  return out;
}

/** Instances that overlap made one span (FTS5's coalescing: adjacent ones stay apart). */
function spans(found: Instance[]): Span[] {
  const out: Span[] = [];
  for (const i of found) {
    const last = out[out.length - 1];
    const end = i.pos + i.size - 1;
    if (last && i.pos <= last.last) last.last = Math.max(last.last, end);
    else out.push({ first: i.pos, last: end });
  }
  return out;
}

/**
 * The marked text of FTS5's highlight callback (fts5HighlightCb in fts5_aux.c), over the whole
 * part or, for a snippet, the token window [from, to]. The marks become ranges in `unmark`.
 */
function render(p: Part, window?: { from: number; to: number }): { marked: string; offset: number } {
  const all = spans(p.found);
  let next = 0;
  if (window) while (next < all.length && all[next]!.first < window.from) next++;
  const cur = () => all[next] ?? { first: -1, last: -1 };
  let out = window && window.from > 0 ? ELLIPSIS : '';
  let offset = 0;
  let open = false;
  p.tokens.forEach((tk, pos) => {
    if (window) {
      if (pos < window.from || pos > window.to) return;
      if (window.from > 0 && pos === window.from) offset = tk.start;
    }
    if (open && (pos <= cur().first || cur().first < 0) && tk.start > offset) {
      out += CLOSE;
      open = false;
    }
    if (pos === cur().first && !open) {
      out += p.text.slice(offset, tk.start) + OPEN;
      offset = tk.start;
      open = true;
    }
    if (pos === cur().last) {
      if (!open) out += OPEN;
      open = true;
      out += p.text.slice(offset, tk.end);
      offset = tk.end;
      next++;
    }
    if (window && pos === window.to) {
      if (open) {
        if (cur().first >= 0 && pos >= cur().first) {
          out += p.text.slice(offset, tk.end);
          offset = tk.end;
        }
        out += CLOSE;
        open = false;
      }
      out += p.text.slice(offset, tk.end);
      offset = tk.end;
    }
  });
  if (open) out += CLOSE;
  return { marked: out, offset };
}

/** FTS5's highlight(): the whole text, the found words marked. */
function highlight(p: Part): HighlightedText {
  const { marked, offset } = render(p);
  return unmark(marked + p.text.slice(offset), p.text);
}

/**
 * FTS5's snippet() over one part (fts5SnippetFunction): the 16-token window scored highest —
 * 1000 for each term's first instance in it, 1 for a repeat — centred on its instances, or
 * starting at a sentence (after `.` or `:`) for a bonus of 100 (120 at the text's start);
 * `…` where the text is cut.
 */
function snippet(p: Part, termCount: number): HighlightedText {
  const size = p.tokens.length;
  const score = (from: number): { score: number; adjusted: number } => {
    const seen = new Array<boolean>(termCount).fill(false);
    let total = 0;
    let first = -1;
    let last = 0;
    for (const i of p.found) {
      if (i.pos < from || i.pos >= from + SNIPPET_TOKENS) continue;
      total += seen[i.term] ? 1 : 1000;
      seen[i.term] = true;
      if (first < 0) first = i.pos;
      last = i.pos + i.size;
    }
    let adjusted = first - Math.trunc((SNIPPET_TOKENS - (last - first)) / 2);
    if (adjusted + SNIPPET_TOKENS > size) adjusted = size - SNIPPET_TOKENS;
    return { score: total, adjusted: Math.max(0, adjusted) };
  };
  const sentences = p.tokens.flatMap((tk, pos) => (pos === 0 || startsSentence(p.text, tk.start) ? [pos] : []));
  let best = 0;
  let from = 0;
  for (const i of p.found) {
    const s = score(i.pos);
    if (s.score > best) [best, from] = [s.score, s.adjusted];
    if (sentences.length > 0 && size > SNIPPET_TOKENS) {
      let j = 0;
      while (j < sentences.length - 1 && sentences[j + 1]! <= i.pos) j++;
      const start = sentences[j]!;
      if (start < i.pos) {
        const bonus = score(start).score + (start === 0 ? 120 : 100);
        if (bonus > best) [best, from] = [bonus, start];
      }
    }
  }
  const to = from + SNIPPET_TOKENS - 1;
  const { marked, offset } = render(p, { from, to });
  return unmark(marked + (to >= size - 1 ? p.text.slice(offset) : ELLIPSIS), p.text);
}

/** After at least one space, tab or line break that follows a `.` or `:` (FTS5's sentence finder). */
function startsSentence(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && ' \t\n\r'.includes(text[i]!)) i--;
  return i !== start - 1 && i >= 0 && (text[i] === '.' || text[i] === ':');
}

/**
 * Defence in depth: the query is built from letters and digits only, so PostgreSQL should never
 * reject it; if it ever does, the client gets a 400 about its query rather than a 500.
 */
async function unreadable<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof pg.DatabaseError && err.code === SYNTAX_ERROR) {
      const issue: ValidationIssue = { code: 'invalid_value', message: 'q could not be read as search words', path: ['q'] };
      throw new AppError('invalid-query', 'q could not be read as search words', { details: [issue] });
    }
    throw err;
  }
}
