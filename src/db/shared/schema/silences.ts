import { bigint, integer, text, table } from './define.js';
import { users, workspaces } from './accounts.js';
import { channels } from './channels.js';

/**
 * Silences and maintenance windows (src/domain/silences.ts): matchers (channel or the whole
 * workspace, level, source, a title substring, field pairs) and when they hold, either a time range
 * (`starts_at` to `ends_at`) or a weekly window (`weekly_days` a bit per weekday, Sunday = bit 0,
 * minutes of the day in `time_zone`). `expired_at` ends one early; rows are kept, so an alert's
 * `silenced_by` keeps naming the silence that muted it.
 */
export const [silences, pgSilences] = table(
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
    startsAt: bigint('starts_at').notNull(),
    endsAt: bigint('ends_at'),
    weeklyDays: integer('weekly_days'),
    weeklyStart: integer('weekly_start'),
    weeklyEnd: integer('weekly_end'),
    timeZone: text('time_zone'),
    comment: text('comment').notNull(),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: bigint('created_at').notNull(),
    expiredAt: bigint('expired_at'),
  },
  (t, { index }) => [index('silences_workspace_idx').on(t.workspaceId, t.createdAt)],
);
