/**
 * Whether a failed statement broke the named unique constraint: PostgreSQL's answer when two nodes
 * insert one key at once (the second INSERT waits for the first's COMMIT, then fails). SQLite never
 * gives it inside BEGIN IMMEDIATE (one writer reads, then writes), so on SQLite this is always false.
 */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint: broken } = err as { code?: unknown; constraint?: unknown };
  return code === '23505' && broken === constraint;
}

/**
 * Whether a write broke the named unique index, on either engine (the write that meets an address or
 * a slug already taken). PostgreSQL names the index (SQLSTATE 23505); SQLite names an expression
 * index ("index 'name'") but a plain one by its columns ("table.a, table.b"): pass those as
 * `sqliteColumns`. The cause is looked at too, in case a layer wraps the driver error.
 */
export function isUniqueClash(err: unknown, index: string, sqliteColumns = index): boolean {
  for (let cause: unknown = err, depth = 0; cause instanceof Error && depth < 3; cause = cause.cause, depth++) {
    if (isUniqueViolation(cause, index)) return true;
    if ('code' in cause && cause.code === 'SQLITE_CONSTRAINT_UNIQUE' && cause.message.includes(sqliteColumns)) return true;
  }
  return false;
}
