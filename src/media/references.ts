import type { ReferenceCheck } from '../domain/media.js';

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

/** The orphan sweep's per-key step under the key's lock (MediaOrphanRows.settleDue): runs `decide` if the key is still due. */
export type SettleKey = (key: string, decide: () => boolean) => Promise<boolean>;

/**
 * The orphan sweep's deletion: asks about every key, then settles each under `settle` (the key's
 * lock across nodes). A key pinned by an upload of this node at that moment stays listed; one an
 * upload of this node pinned or released at any point since the questions began also stays listed
 * (the next sweep asks again: its upload may have committed a reference); one an alert uses is
 * forgotten; the others are unlinked and forgotten.
 */
export async function settleOrphans(
  keys: readonly string[],
  isReferenced: ReferenceCheck,
  settle: SettleKey,
  store: { isPinned(key: string): boolean; watchers: Set<Set<string>>; unlink(key: string): boolean },
): Promise<{ deleted: string[]; settled: number }> {
  const moved = new Set<string>();
  store.watchers.add(moved);
  try {
    const refs = referencesOf(keys, (key) => store.isPinned(key), isReferenced, store.watchers);
    const { used, touched } = refs instanceof Promise ? await refs : refs;
    const deleted: string[] = [];
    let settled = 0;
    for (const key of keys) {
      const decide = () => {
        if (store.isPinned(key) || moved.has(key) || touched.has(key)) return false;
        if (!used.has(key) && store.unlink(key)) deleted.push(key);
        return true;
      };
      if (await settle(key, decide)) settled++;
    }
    return { deleted, settled };
  } finally {
    store.watchers.delete(moved);
  }
}
