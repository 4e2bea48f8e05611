import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { toMatchExpression } from '../../src/db/sqlite/alert-store/search.js';
import { unmark } from '../../src/db/shared/search-marks.js';
import { AppError } from '../../src/domain/errors.js';
import { highlightHtml } from '../../src/domain/search-highlight.js';
import { parseSearchQuery, SEARCH_LIMITS } from '../../src/domain/search-query.js';

const match = (q: string) => toMatchExpression(parseSearchQuery(q));

/** A scratch FTS5 table with the production tokenizer: every compiled expression must parse, whatever the input. */
const db = new Database(':memory:');
db.exec("CREATE VIRTUAL TABLE t USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2')");
const ins = db.prepare('INSERT INTO t (title, body) VALUES (?, ?)');
const docs = ['x', 'title:foo', 'foo', 'NEAR( a b', 'deploy api', 'deployment done', 'api deploy', 'Crème brûlée', '"quoted" text', 'a-b c'];
docs.forEach((d, i) => ins.run(i === 2 ? 'title' : '', d));
const find = (q: string) => {
  const expr = match(q);
  if (expr === '') return [];
  return (db.prepare('SELECT body FROM t WHERE t MATCH ? ORDER BY rowid').pluck().all(expr) as string[]);
};

describe('parseSearchQuery', () => {
  it('splits words, keeps a trailing * as a prefix, quotes as a phrase', () => {
    expect(parseSearchQuery('deploy  api*  "payment failed"')).toEqual([
      { text: 'deploy', prefix: false, phrase: false },
      { text: 'api', prefix: true, phrase: false },
      { text: 'payment failed', prefix: false, phrase: true },
    ]);
  });

  it('runs an unclosed quote to the end and drops terms with no letter or digit', () => {
    expect(parseSearchQuery('a "b c')).toEqual([
      { text: 'a', prefix: false, phrase: false },
      { text: 'b c', prefix: false, phrase: true },
    ]);
    expect(parseSearchQuery('* ** "" -- 🚀 "')).toEqual([]);
  });

  it.each([
    ['', 'at least one word'],
    ['   ', 'at least one word'],
    ['x'.repeat(SEARCH_LIMITS.maxQueryChars + 1), `at most ${SEARCH_LIMITS.maxQueryChars} characters`],
    [Array.from({ length: SEARCH_LIMITS.maxTerms + 1 }, (_, i) => `w${i}`).join(' '), `at most ${SEARCH_LIMITS.maxTerms} words`],
  ])('rejects %j as invalid-query on q', (q, text) => {
    let err: unknown;
    try {
      parseSearchQuery(q);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid-query');
    expect((err as AppError).detail).toContain(text);
  });

  it('accepts exactly the limits', () => {
    expect(parseSearchQuery('é'.repeat(SEARCH_LIMITS.maxQueryChars))).toHaveLength(1);
    expect(parseSearchQuery(Array.from({ length: SEARCH_LIMITS.maxTerms }, (_, i) => `w${i}`).join(' '))).toHaveLength(SEARCH_LIMITS.maxTerms);
  });
});

describe('toMatchExpression', () => {
  it('quotes every term and doubles inner quotes', () => {
    expect(match('deploy api*')).toBe('"deploy" "api" *');
    expect(match('say"hi')).toBe('"say" "hi"');
    expect(match('"a ""b"')).toBe('"a " "b"');
    expect(toMatchExpression([{ text: 'o"k', prefix: false, phrase: false }])).toBe('"o""k"');
  });

  it('ANDs words, matches prefixes and phrases', () => {
    expect(find('deploy')).toEqual(['deploy api', 'api deploy']);
    expect(find('deploy*')).toEqual(['deploy api', 'deployment done', 'api deploy']);
    expect(find('"deploy api"')).toEqual(['deploy api']);
    expect(find('api deploy')).toEqual(['deploy api', 'api deploy']);
    expect(find('creme BRULEE')).toEqual(['Crème brûlée']);
  });

  it('never lets an operator through: title:foo is the text "title foo", not a column filter', () => {
    expect(find('title:foo')).toEqual(['title:foo']);
    expect(find('NEAR(')).toEqual(['NEAR( a b']);
    expect(find('NOT foo')).toEqual([]);
    expect(find('foo OR x')).toEqual([]);
    expect(find('-x')).toEqual(['x']);
    expect(find('a-b')).toEqual(['NEAR( a b', 'a-b c']); // the words a and b, side by side
  });

  it.each([
    '"', '""', '"""', '*', 'a**', '***a', '(', ')', 'a AND', 'OR', 'NEAR(a b, 2)', '{title body}: x', '^x', 'x:', ':x', '+x', "'", '\\', 'a"b"c"',
    '\u0000', '\u202e', '🚀 launch', 'ｔｉｔｌｅ', 'Ω*', '日本語 テキスト', 'a'.repeat(256),
  ])('compiles %j to an expression the index accepts', (q) => {
    expect(() => find(q)).not.toThrow();
  });
});

describe('highlights', () => {
  it('turns marks into ranges and escapes everything for HTML', () => {
    const h = unmark('a <\uE000b\uE001> & \uE000c\uE001', 'a <b> & c');
    expect(h).toEqual({ text: 'a <b> & c', ranges: [[3, 4], [8, 9]] });
    expect(highlightHtml(h)).toBe('a &lt;<mark>b</mark>&gt; &amp; <mark>c</mark>');
  });

  it('gives no ranges rather than wrong ones when the text itself holds a mark character', () => {
    expect(unmark('\uE000x\uE001 \uE000y', 'x \uE000y')).toEqual({ text: 'x y', ranges: [] });
  });
});
