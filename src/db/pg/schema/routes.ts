// PostgreSQL mirror of src/db/sqlite/schema/routes.ts.
import { bigint, index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { channels } from './channels.js';

export const routes = pgTable(
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
    failingSince: bigint('failing_since', { mode: 'number' }),
    ratePerMinute: integer('rate_per_minute').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [index('routes_channel_idx').on(t.channelId)],
);

export const routeDeliveries = pgTable(
  'route_deliveries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    routeId: text('route_id')
      .notNull()
      .references(() => routes.id, { onDelete: 'cascade' }),
    alertId: text('alert_id').notNull(),
    channelId: text('channel_id').notNull(),
    event: text('event', { enum: ['alert.opened', 'alert.updated', 'alert.acknowledged', 'alert.resolved'] }).notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'skipped', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    leaseUntil: bigint('lease_until', { mode: 'number' }),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    lastAttemptAt: bigint('last_attempt_at', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [
    index('route_deliveries_due_idx').on(t.state, t.nextAttemptAt),
    index('route_deliveries_alert_idx').on(t.alertId),
    index('route_deliveries_order_idx').on(t.routeId, t.alertId, t.id),
  ],
);

export const routeMessages = pgTable(
  'route_messages',
  {
    routeId: text('route_id')
      .notNull()
      .references(() => routes.id, { onDelete: 'cascade' }),
    alertId: text('alert_id').notNull(),
    messageRef: text('message_ref').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.routeId, t.alertId] })],
);
