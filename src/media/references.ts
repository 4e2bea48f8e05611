/**
 * Whether any alert still uses a media key: synchronous on SQLite, a query on PostgreSQL. Deleting
 * waits for every answer first and then decides key by key in one tick; a key pinned or unpinned
 * by an upload while the answers were coming is kept (its upload may have committed a new reference).
 */
export type ReferenceCheck = (key: string) => boolean | Promise<boolean>;

/** The keys an alert uses, and those an upload pinned or unpinned while that was asked. */
export type References = { used: Set<string>; touched: Set<string> };

/**
 * Asks about each key not pinned now. Synchronous while the answers are (SQLite: decided and
 * unlinked in the caller's tick, as always); from the first asynchronous answer on, a watcher set
 * in `watchers` (the media store adds every key it pins or unpins to each) records the uploads that
 * moved meanwhile.
 */
export function referencesOf(keys: Iterable<string>, isPinned: (key: string) => boolean, isReferenced: ReferenceCheck, watchers: Set<Set<string>>): References | Promise<References> {
  const used = new Set<string>();
  const list = [...keys];
  for (let i = 0; i < list.length; i++) {
    const key = list[i]!;
    if (isPinned(key)) continue;
    const answer = isReferenced(key);
    if (answer instanceof Promise) return rest(list.slice(i + 1), answer, key);
    if (answer) used.add(key);
  }
  return { used, touched: new Set() };

  async function rest(keys: string[], first: Promise<boolean>, firstKey: string): Promise<References> {
    const touched = new Set<string>();
    watchers.add(touched);
    try {
      if (await first) used.add(firstKey);
      for (const key of keys) if (!isPinned(key) && (await isReferenced(key))) used.add(key);
    } finally {
      watchers.delete(touched);
    }
    return { used, touched };
  }
}
