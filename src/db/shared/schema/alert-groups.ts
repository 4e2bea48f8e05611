import { channels } from './channels.js';
import { alerts } from './alerts.js';
import { bigint, text, table } from './define.js';

/**
 * Alertmanager and Grafana groups (issue 14): one alert per (channel, group
 * key), updated in place. The key is namespaced by format (`alertmanager:…`,
 * `grafana:…`) and at most 200 characters (longer keys are hashed by the
 * mapper). `status` and `state_fingerprint` are the last state seen, so a
 * repeat of an unchanged group (Alertmanager's repeat_interval) is told from a
 * change. Deleting the alert deletes the row: the next notification of the
 * group starts a new alert.
 */
export const [alertGroups, pgAlertGroups] = table(
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
    updatedAt: bigint('updated_at').notNull(),
  },
  (t, { index, primaryKey }) => [primaryKey({ columns: [t.channelId, t.groupKey] }), index('alert_groups_alert_idx').on(t.alertId)],
);
