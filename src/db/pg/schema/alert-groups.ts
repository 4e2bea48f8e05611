// PostgreSQL mirror of src/db/sqlite/schema/alert-groups.ts.
import { bigint, index, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { text } from './types.js';
import { channels } from './channels.js';
import { alerts } from './alerts.js';

export const alertGroups = pgTable(
  'alert_groups',
  {
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    groupKey: text('group_key').notNull(),
    alertId: text('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['firing', 'resolved'] }).notNull(),
    stateFingerprint: text('state_fingerprint').notNull(),
    updatedAt: bigint('updated_at', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.groupKey] }), index('alert_groups_alert_idx').on(t.alertId)],
);
