import { autoId, bigint, integer, text, table } from './define.js';
import { channels } from './channels.js';

/**
 * Outbound routes (docs/routes.md): one channel's alerts forwarded to a chat or a signed webhook.
 * `target_sealed` holds the target and its secrets encrypted under SECRETS_KEY (src/lib/secret-box.ts),
 * `key_id` names the key it was sealed with, `target_hint` is the masked form shown in lists.
 * `events` is a comma-framed list (",alert.opened,alert.resolved,") so one LIKE picks the routes
 * inside the alert's write unit. `failing_since` starts the hour after which a failing route pauses.
 */
export const [routes, pgRoutes] = table(
  'routes',
  {
    id: text('id').primaryKey(),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['slack', 'discord', 'teams', 'telegram', 'matrix', 'ntfy', 'webhook'] }).notNull(),
    targetSealed: text('target_sealed').notNull(),
    keyId: text('key_id').notNull(),
    targetHint: text('target_hint').notNull(),
    minLevel: text('min_level', { enum: ['INFO', 'SUCCESS', 'WARNING', 'ERROR'] }).notNull(),
    events: text('events').notNull(),
    source: text('source'),
    fieldsJson: text('fields_json').notNull(),
    state: text('state', { enum: ['active', 'paused'] }).notNull(),
    pausedReason: text('paused_reason'),
    failingSince: bigint('failing_since'),
    ratePerMinute: integer('rate_per_minute').notNull(),
    createdAt: bigint('created_at').notNull(),
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { index }) => [index('routes_channel_idx').on(t.channelId)],
);

/**
 * The routes' outbox: one row per (alert event, route), written in the alert's write unit. Its id
 * is the stable `webhook-id`. pending → sending (claimed, `lease_until`) → sent | pending (retry) |
 * failed | skipped (filtered or silenced at send time). A `sending` row whose lease ran out was cut
 * off by a crash and is sent again, with the same id.
 */
export const [routeDeliveries, pgRouteDeliveries] = table(
  'route_deliveries',
  {
    id: autoId('id'),
    routeId: text('route_id')
      .notNull()
      .references(() => routes.id, { onDelete: 'cascade' }),
    alertId: text('alert_id').notNull(),
    channelId: text('channel_id').notNull(),
    event: text('event', { enum: ['alert.opened', 'alert.updated', 'alert.acknowledged', 'alert.resolved'] }).notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'skipped', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: bigint('next_attempt_at').notNull(),
    leaseUntil: bigint('lease_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    lastAttemptAt: bigint('last_attempt_at'),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index }) => [
    index('route_deliveries_due_idx').on(t.state, t.nextAttemptAt),
    index('route_deliveries_alert_idx').on(t.alertId),
    index('route_deliveries_order_idx').on(t.routeId, t.alertId, t.id),
    // The rate limit's count of a route's attempts in the last minute reads only that minute's rows, not the route's whole backlog.
    index('route_deliveries_recent_idx').on(t.routeId, t.lastAttemptAt),
  ],
);

/** The message a route posted for an alert (Discord message id, Telegram message_id, Matrix event id), so later events edit it. */
export const [routeMessages, pgRouteMessages] = table(
  'route_messages',
  {
    routeId: text('route_id')
      .notNull()
      .references(() => routes.id, { onDelete: 'cascade' }),
    alertId: text('alert_id').notNull(),
    messageRef: text('message_ref').notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { primaryKey }) => [primaryKey({ columns: [t.routeId, t.alertId] })],
);
