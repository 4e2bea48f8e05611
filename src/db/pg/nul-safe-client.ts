import pg from 'pg';

/** A parameter with every U+0000 of its strings (and of its arrays' strings) replaced by U+FFFD. */
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
  if (Array.isArray(value)) return value.map(withoutNul);
  return value;
}

/**
 * The pool's client. PostgreSQL text cannot hold U+0000 (SQLite can, and stores it): a NUL that
 * came in a webhook payload, a chat message or a URL would fail its statement ("invalid byte
 * sequence for encoding UTF8: 0x00") and answer 500. Every string parameter has its NULs replaced
 * by U+FFFD instead: the alert is stored (with U+FFFD where SQLite keeps the NUL), and a looked-up
 * key with a NUL matches nothing, as on SQLite, where no key has one.
 */
export class NulSafeClient extends pg.Client {}

const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
NulSafeClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [config, values] = args;
  if (Array.isArray(values)) args[1] = values.map(withoutNul);
  else if (config !== null && typeof config === 'object' && Array.isArray((config as { values?: unknown }).values)) {
    const c = config as { values: unknown[]; submit?: unknown };
    // A Submittable (a Query or Cursor object) is handed on as it is; a plain config is copied.
    if (typeof c.submit === 'function') c.values = c.values.map(withoutNul);
    else args[0] = { ...c, values: c.values.map(withoutNul) };
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;
