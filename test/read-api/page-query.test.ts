import { describe, expect, it } from 'vitest';
import { parsePageQuery } from '../../src/http/page-query.js';
import { ListQuery } from '../../src/http/routes/read-api.js';

/**
 * The alert page's query is checked without zod for the common shapes
 * (src/http/page-query.ts). Wherever the fast check answers, the schema must
 * answer the same; wherever it steps aside, the schema decides (and words
 * every error). Common valid queries must take the fast path.
 */
const ID = 'alt_01JZ0000000000000000000000';
const values = {
  limit: ['1', '50', '100', '0', '101', '050', ' 5', '5.0', '1e1', '-1', '', 'abc', '999', '1000', '7'],
  cursor: [ID, 'alt_01jz0000000000000000000000', 'alt_short', '', `${ID}x`, 'chn_01JZ0000000000000000000000'],
  after: [ID, 'nope', ''],
  level: ['info', 'ERROR', 'Warning', 'success', 'fatal', '', 'İNFO'],
  thread: ['12345678901234567', '12345678901234567890', '1234567890123456', '123456789012345678901', '', 'abc', '１２３４５６７８９０１２３４５６７'],
  order: ['asc', 'desc', 'ASC', '', 'up'],
};

function* queries(): Generator<Record<string, string[]>> {
  yield {};
  yield { other: ['x'] };
  for (const [key, vs] of Object.entries(values)) {
    for (const v of vs) {
      yield { [key]: [v] };
      yield { [key]: [v, v] };
      yield { [key]: [v], unknown: ['1'] };
    }
  }
  for (const limit of values.limit) for (const level of values.level) for (const cursor of values.cursor) yield { limit: [limit], level: [level], cursor: [cursor] };
  for (const after of values.after) for (const cursor of values.cursor) yield { after: [after], cursor: [cursor] };
  for (const thread of values.thread) for (const order of values.order) for (const cursor of values.cursor) yield { thread: [thread], order: [order], cursor: [cursor] };
}

/** What the OpenAPI validator hands the schema: one value as a string, repeated ones as an array. */
const asValidatorInput = (q: Record<string, string[]>) => Object.fromEntries(Object.entries(q).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v])));
const defined = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

describe('the alert page query without zod', () => {
  it('answers what the schema answers, or leaves the query to it', () => {
    let fast = 0;
    let total = 0;
    for (const q of queries()) {
      total++;
      const mine = parsePageQuery(q);
      const schema = ListQuery.safeParse(asValidatorInput(q));
      if (mine === undefined) continue;
      fast++;
      expect(schema.success, JSON.stringify(q)).toBe(true);
      expect(defined(mine), JSON.stringify(q)).toEqual(defined(schema.data!));
    }
    expect(fast).toBeGreaterThan(50);
    expect(total).toBeGreaterThan(fast);
  });

  it('takes the fast path for the queries clients send', () => {
    const common: Record<string, string[]>[] = [{}, { limit: ['50'] }, { limit: ['20'], cursor: [ID] }, { level: ['error'] }, { after: [ID] }, { limit: ['100'], level: ['WARNING'], cursor: [ID], after: [ID] }, { thread: ['12345678901234567'], order: ['asc'], cursor: [ID] }];
    for (const q of common) {
      expect(parsePageQuery(q), JSON.stringify(q)).toBeDefined();
    }
  });
});
