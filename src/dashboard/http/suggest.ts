/**
 * What to offer instead of a name or slug that is taken: the first of `base-2`, `base-3`, … (or
 * `Base 2` for names) that nobody uses, as GitHub and Slack do. `taken` is compared case-insensitively.
 */
export function freeName(base: string, taken: Iterable<string>, opts: { separator?: string; maxLength?: number } = {}): string {
  const sep = opts.separator ?? ' ';
  const max = opts.maxLength ?? 100;
  const used = new Set([...taken].map((t) => t.toLowerCase()));
  for (let n = 2; ; n++) {
    const tail = `${sep}${n}`;
    const candidate = `${base.slice(0, max - tail.length).replace(/-+$/, '')}${tail}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/** A free channel slug next to a taken one: `deploys` → `deploys-2` (slugs are at most 64 characters). */
export const freeSlug = (slug: string, taken: Iterable<string>) => freeName(slug, taken, { separator: '-', maxLength: 64 });
