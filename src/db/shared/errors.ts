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
