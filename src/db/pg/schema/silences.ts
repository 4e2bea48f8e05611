// PostgreSQL mirror of src/db/sqlite/schema/silences.ts (the comments there explain each table).
import { bigint, index, integer, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { users, workspaces } from './accounts.js';
import { channels } from './channels.js';

export const silences = pgTable(
  'silences',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').references(() => channels.id, { onDelete: 'cascade' }),
    level: text('level', { enum: ['INFO', 'SUCCESS', 'WARNING', 'ERROR'] }),
    source: text('source'),
    titleContains: text('title_contains'),
    fieldsJson: text('fields_json'),
    startsAt: bigint('starts_at', { mode: 'number' }).notNull(),
    endsAt: bigint('ends_at', { mode: 'number' }),
    weeklyDays: integer('weekly_days'),
    weeklyStart: integer('weekly_start'),
    weeklyEnd: integer('weekly_end'),
    timeZone: text('time_zone'),
    comment: text('comment').notNull(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiredAt: bigint('expired_at', { mode: 'number' }),
  },
  (t) => [index('silences_workspace_idx').on(t.workspaceId, t.createdAt)],
);
