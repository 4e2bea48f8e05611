import { ID_PATTERN } from '../lib/ids.js';
import { LIST_PAGE_SIZE, THREAD_ID_PATTERN } from './schemas.js';

/** The alert page's query, as the route's zod schema (ListQuery in routes/read-api.ts) returns it. */
export interface PageQueryInput {
  limit: number;
  cursor?: string | undefined;
  after?: string | undefined;
  level?: 'info' | 'success' | 'warning' | 'error' | undefined;
  /** As given: the use case checks it (parseStatusFilter). */
  status?: string | undefined;
  thread?: string | undefined;
  order?: 'asc' | 'desc' | undefined;
}

const LEVELS = new Set(['info', 'success', 'warning', 'error']);
/** A plain whole number of at most three digits, no sign, space, exponent or leading zero: coerced by zod to the same value. */
const PLAIN_LIMIT = /^[1-9][0-9]{0,2}$/;

/**
 * The alert page's query checked without zod, for the common shapes (each
 * parameter given once, every value valid): about 6 % of a page's CPU went to
 * the OpenAPI validator. Returns undefined for anything else, which the route
 * then hands to the schema, so every answer and every error message stay the
 * schema's (`test/read-api/page-query.test.ts` compares the two). Unknown
 * parameters are ignored, as the schema strips them.
 */
export function parsePageQuery(queries: Record<string, string[]>): PageQueryInput | undefined {
  const out: PageQueryInput = { limit: LIST_PAGE_SIZE.default };
  for (const key in queries) {
    if (key !== 'limit' && key !== 'cursor' && key !== 'after' && key !== 'level' && key !== 'status' && key !== 'thread' && key !== 'order') continue;
    const values = queries[key]!;
    if (values.length !== 1) return undefined;
    const v = values[0]!;
    if (key === 'limit') {
      if (!PLAIN_LIMIT.test(v)) return undefined;
      const n = Number(v);
      if (n < LIST_PAGE_SIZE.min || n > LIST_PAGE_SIZE.max) return undefined;
      out.limit = n;
    } else if (key === 'status') {
      out.status = v;
    } else if (key === 'thread') {
      if (!THREAD_ID_PATTERN.test(v)) return undefined;
      out.thread = v;
    } else if (key === 'order') {
      if (v !== 'asc' && v !== 'desc') return undefined;
      out.order = v;
    } else if (key === 'level') {
      const level = v.toLowerCase();
      if (!LEVELS.has(level)) return undefined;
      out.level = level as PageQueryInput['level'];
    } else {
      if (!ID_PATTERN.test(v)) return undefined;
      out[key] = v;
    }
  }
  return out;
}
