// PostgreSQL mirror of src/db/sqlite/schema/ops.ts.
import { bigint, index, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';

export const mediaOrphans = pgTable(
  'media_orphans',
  {
    mediaKey: text('media_key').primaryKey(),
    orphanedAt: bigint('orphaned_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('media_orphans_orphaned_at_idx').on(t.orphanedAt)],
);
