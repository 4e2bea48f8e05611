import { users } from './accounts.js';
import { channels } from './channels.js';
import { autoId, bigint, integer, text, table } from './define.js';

/**
 * E-mail preference per (user, channel). No row means the default (see
 * src/notify/preferences.ts: `all`, or `none` on a chat-connected channel).
 */
export const [notificationPreferences, pgNotificationPreferences] = table(
  'notification_preferences',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    level: text('level', { enum: ['all', 'important', 'none'] }).notNull(),
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.userId, t.channelId] })],
);

/**
 * One e-mail owed to one recipient for one outbox job. The primary key is what
 * makes delivery at most once per (job, recipient): the fan-out inserts with
 * OR IGNORE, and a row is moved to `sending` in a transaction BEFORE the SMTP
 * conversation starts and to `sent` after it. A row found in `sending` at start
 * was interrupted by a crash mid-send and is never sent again (see
 * docs/notifications.md, "Exactly once").
 *
 * States: pending → sending → sent | pending (retry) | failed;
 * pending → folded (into the digest `digest_id`) | skipped (recipient no longer
 * eligible, alert deleted).
 *
 * No foreign keys on user/alert: the record of what was sent outlives them.
 */
export const [notificationDeliveries, pgNotificationDeliveries] = table(
  'notification_deliveries',
  {
    jobId: bigint('job_id').notNull(),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'folded', 'skipped', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at').notNull(),
    lastError: text('last_error'),
    messageId: text('message_id'),
    digestId: bigint('digest_id'),
    createdAt: bigint('created_at').notNull(),
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { index, primaryKey }) => [
    primaryKey({ columns: [t.jobId, t.userId] }),
    index('notification_deliveries_due_idx').on(t.state, t.nextAttemptAt),
    index('notification_deliveries_digest_idx').on(t.digestId),
  ],
);

/**
 * Flood guard: the current window per (recipient, channel). A window opens
 * with the first e-mail when none is open and lasts the flood window (60 s);
 * `sent` counts the individual e-mails in it; past the limit the rest go to
 * the window's digest.
 */
export const [notificationFloodWindows, pgNotificationFloodWindows] = table(
  'notification_flood_windows',
  {
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    windowStart: bigint('window_start').notNull(),
    windowEnd: bigint('window_end').notNull(),
    sent: integer('sent').notNull(),
    digestId: bigint('digest_id'),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.userId, t.channelId] })],
);

/**
 * One digest e-mail per overflowing window, sent when the window closes
 * (`next_attempt_at` starts at the window's end). Same claim/mark protocol and
 * states as a delivery.
 */
export const [notificationDigests, pgNotificationDigests] = table(
  'notification_digests',
  {
    id: autoId('id'),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    windowStart: bigint('window_start').notNull(),
    windowEnd: bigint('window_end').notNull(),
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
  (t, { index }) => [index('notification_digests_due_idx').on(t.state, t.nextAttemptAt)],
);
