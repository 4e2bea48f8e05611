import { z } from 'zod';

/**
 * Lenient zod building blocks for the drop-in formats. A sender that cannot
 * shape its JSON must not lose an alert to a wrong type somewhere deep in it:
 * a scalar of the wrong kind is coerced, anything unusable becomes undefined
 * (or is dropped from its array). Only the top level must be an object.
 * Each ends in `.optional()` or `.default()`: zod 4 refuses a missing key
 * unless the key's schema says it may be absent, whatever a transform returns.
 */

/** A string; numbers and booleans become their text; anything else undefined. */
export const lstr = z.unknown().transform((v): string | undefined => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}).optional();

/** A finite number; a numeric string is read as one. */
export const lnum = z.unknown().transform((v): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}).optional();

/** A boolean; the strings "true"/"false" are read as one. */
export const lbool = z.unknown().transform((v): boolean | undefined => {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}).optional();

/** An object read with `shape`, or undefined when the value is not an object. */
export function lobj<S extends z.ZodRawShape>(shape: S) {
  const schema = z.object(shape);
  return z.unknown().transform((v) => {
    if (!isPlainObject(v)) return undefined;
    const r = schema.safeParse(v);
    return r.success ? r.data : undefined;
  }).optional();
}

/** An array whose unreadable items are dropped; a non-array is an empty array. */
export function larr<T extends z.ZodType>(item: T) {
  type Item = Exclude<z.output<T>, undefined>;
  return z.unknown().transform((v): Item[] => {
    if (!Array.isArray(v)) return [];
    const out: Item[] = [];
    for (const x of v) {
      const r = item.safeParse(x);
      if (r.success && r.data !== undefined) out.push(r.data as Item);
    }
    return out;
  }).default(() => []);
}

/**
 * A string-to-string map (labels, annotations) as an ordered list of entries.
 * Never an object: keys such as `__proto__` or `constructor` are sender data,
 * and writing them into a plain object would change its prototype or shadow a
 * method. Entries keep their order; non-scalar values are dropped.
 */
export const lentries = z.unknown().transform((v): [string, string][] => {
  if (!isPlainObject(v)) return [];
  const out: [string, string][] = [];
  for (const [k, raw] of Object.entries(v)) {
    const s = lstr.parse(raw);
    if (s !== undefined) out.push([k, s]);
  }
  return out;
}).default(() => []);

/** The value under `key` in an entry list (own entries only, by construction). */
export const entry = (entries: readonly [string, string][], key: string): string | undefined =>
  entries.find(([k]) => k === key)?.[1];

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
