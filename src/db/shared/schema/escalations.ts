import { bigint, integer, text, table } from './define.js';
import { users } from './accounts.js';
import { alerts } from './alerts.js';
import { channels } from './channels.js';

/**
 * A channel's escalation policy (docs/handling-alerts.md, "Escalation"): alerts at or above
 * `min_level` that stay open are notified again `after_ms` after they open, every `every_ms` up to
 * `times`, then `then_json` (user ids; null: the workspace's owners and admins) once more.
 */
export const [escalationPolicies, pgEscalationPolicies] = table('escalation_policies', {
  channelId: text('channel_id')
    .primaryKey()
    .references(() => channels.id, { onDelete: 'cascade' }),
  minLevel: text('min_level', { enum: ['INFO', 'SUCCESS', 'WARNING', 'ERROR'] }).notNull(),
  afterMs: bigint('after_ms').notNull(),
  everyMs: bigint('every_ms').notNull(),
  times: integer('times').notNull(),
  thenJson: text('then_json'),
  updatedBy: text('updated_by').references(() => users.id, { onDelete: 'set null' }),
  updatedAt: bigint('updated_at').notNull(),
});

/**
 * Where one open alert stands in its channel's escalation: `armed_at` is when its current open
 * spell began (created, reopened, a snooze's end), `step` how many steps were sent since, `due_at`
 * when the leader looks at it again (null: every step sent). A step's notification job is written in
 * the same transaction as `step` + 1, so each step happens once.
 */
export const [alertEscalations, pgAlertEscalations] = table(
  'alert_escalations',
  {
    alertId: text('alert_id')
      .primaryKey()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    armedAt: bigint('armed_at').notNull(),
    step: integer('step').notNull(),
    dueAt: bigint('due_at'),
  },
  (t, { index }) => [index('alert_escalations_due_idx').on(t.dueAt)],
);

/** The leader's cursor in the change log (`alert_events`): alerts changed after it are (re)armed. */
export const [escalationCursor, pgEscalationCursor] = table('escalation_cursor', {
  name: text('name').primaryKey(),
  lastEventId: bigint('last_event_id').notNull(),
});
