import { users } from './accounts.js';
import { autoId, bigint, integer, text, table } from './define.js';

/**
 * A person's quiet hours (src/domain/quiet-hours.ts): a daily window in their time zone, in minutes
 * after local midnight (a window crossing midnight has start > end), and the lowest level that still
 * notifies inside it. No row: no quiet hours.
 */
export const [quietHours, pgQuietHours] = table('quiet_hours', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  timeZone: text('time_zone').notNull(),
  startMinute: integer('start_minute').notNull(),
  endMinute: integer('end_minute').notNull(),
  minLevel: text('min_level', { enum: ['INFO', 'WARNING', 'ERROR'] }).notNull(),
  updatedAt: bigint('updated_at').notNull(),
});

/**
 * One digest e-mail per person and quiet window, due when the window ends (`due_at`). The unique
 * key makes every held alert of one window join one row, whichever node fans it out. Same claim
 * and outcome protocol and states as notification_digests (claimed `sending` before the SMTP
 * conversation, never resent after a crash).
 */
export const [quietDigests, pgQuietDigests] = table(
  'quiet_digests',
  {
    id: autoId('id'),
    userId: text('user_id').notNull(),
    dueAt: bigint('due_at').notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'skipped', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at').notNull(),
    lastError: text('last_error'),
    messageId: text('message_id'),
    createdAt: bigint('created_at').notNull(),
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { index, uniqueIndex }) => [
    uniqueIndex('quiet_digests_user_due_uq').on(t.userId, t.dueAt),
    index('quiet_digests_due_idx').on(t.state, t.nextAttemptAt),
  ],
);

/**
 * An alert held back from one person by their quiet hours, listed in the window's digest. Written
 * in the outbox fan-out's transaction, instead of that person's delivery rows. No foreign keys:
 * an alert deleted meanwhile is counted as such in the digest.
 */
export const [quietHolds, pgQuietHolds] = table(
  'quiet_holds',
  {
    digestId: bigint('digest_id').notNull(),
    jobId: bigint('job_id').notNull(),
    alertId: text('alert_id').notNull(),
    channelId: text('channel_id').notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.digestId, t.jobId] })],
);
