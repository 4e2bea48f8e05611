import { users } from './accounts.js';
import { bigint, integer, text, table } from './define.js';

/**
 * Web Push subscriptions: one per (user, browser profile). `endpoint` is the
 * push service's URL for that browser (unique: a browser re-subscribing
 * replaces its row), `p256dh` and `auth` the browser's public key and auth
 * secret (RFC 8291) the payload is encrypted to. They are kept as the browser
 * gave them (base64url) because encryption needs them; they never reach a log
 * line. A push service answering 404/410 deletes the row.
 */
export const [pushSubscriptions, pgPushSubscriptions] = table(
  'push_subscriptions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull().unique(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    /** "Chrome on Android", from the User-Agent at subscription. */
    device: text('device').notNull(),
    createdAt: bigint('created_at').notNull(),
    lastSuccessAt: bigint('last_success_at'),
    lastError: text('last_error'),
  },
  (t, { index }) => [index('push_subscriptions_user_idx').on(t.userId)],
);

/**
 * One push owed to one subscription for one outbox job: written by the
 * outbox's fan-out in the same transaction as the job's e-mail deliveries, so
 * push and e-mail share one decision of who is notified. Same protocol as
 * e-mail deliveries: pending → sending (claimed in a transaction before the
 * request) → sent | pending (retry) | failed; pending → skipped. A row still
 * `sending` at start was cut off by a crash and is never resent.
 */
export const [pushDeliveries, pgPushDeliveries] = table(
  'push_deliveries',
  {
    jobId: bigint('job_id').notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => pushSubscriptions.id, { onDelete: 'cascade' }),
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    alertId: text('alert_id').notNull(),
    kind: text('kind', { enum: ['alert.created', 'alert.resolved', 'workflow.started', 'workflow.finished', 'alert.escalated'] }).notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'skipped', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: bigint('created_at').notNull(),
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.jobId, t.subscriptionId] }), index('push_deliveries_due_idx').on(t.state, t.nextAttemptAt)],
);

/**
 * The push flood guard per (user, channel): the e-mail's limit and window.
 * Past the limit, pushes in the window become one quiet, replaced summary
 * notification ("7 more alerts in #deploys") instead of one buzz each.
 */
export const [pushFloodWindows, pgPushFloodWindows] = table(
  'push_flood_windows',
  {
    userId: text('user_id').notNull(),
    channelId: text('channel_id').notNull(),
    windowStart: bigint('window_start').notNull(),
    windowEnd: bigint('window_end').notNull(),
    sent: integer('sent').notNull(),
    folded: integer('folded').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.userId, t.channelId] })],
);
