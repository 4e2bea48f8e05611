import { bigint, text, table } from './define.js';

/**
 * Media files no alert references any more, and since when. They are deleted
 * only after a grace period (MEDIA_ORPHAN_GRACE_HOURS) so that a database copy
 * followed by an rsync of media/ is a complete backup: a file the copy still
 * references cannot vanish between the two steps.
 */
export const [mediaOrphans, pgMediaOrphans] = table(
  'media_orphans',
  {
    mediaKey: text('media_key').primaryKey(),
    /** Epoch ms of the latest release: a key referenced again and released again starts a new grace period. */
    orphanedAt: bigint('orphaned_at').notNull(),
  },
  (t, { index }) => [index('media_orphans_orphaned_at_idx').on(t.orphanedAt)],
);
