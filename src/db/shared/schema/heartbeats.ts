import { workspaces } from './accounts.js';
import { channels } from './channels.js';
import { autoId, bigint, integer, text, table } from './define.js';

/**
 * Heartbeat checks (issue 28, docs/heartbeats.md): a dead-man's switch per channel. `ping_uuid` is
 * the check's Healthchecks-style ping credential; `slug` is unique per workspace for the ping-key
 * form. The schedule is a period (`period_ms`) or a cron line in `time_zone`, plus `grace_ms`.
 * `status` is the stored state (new, up, down, paused; "late" is computed). `down_at` is the instant
 * the check goes down unless pinged (NULL when nothing is due): the timer's one indexed look-up, so a
 * restart or a new leader finds every overdue check from the rows alone; a check whose `down_since`
 * differs from `alerted_since` still owes its alert (or, up again, its resolution).
 */
export const [heartbeatChecks, pgHeartbeatChecks] = table(
  'heartbeat_checks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    pingUuid: text('ping_uuid').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    periodMs: bigint('period_ms'),
    cron: text('cron'),
    timeZone: text('time_zone'),
    graceMs: bigint('grace_ms').notNull(),
    status: text('status', { enum: ['new', 'up', 'down', 'paused'] }).notNull(),
    lastPingAt: bigint('last_ping_at'),
    lastStartAt: bigint('last_start_at'),
    lastStartRid: text('last_start_rid'),
    lastDurationMs: bigint('last_duration_ms'),
    downAt: bigint('down_at'),
    /** When the current down began (the alert episode's name); `alerted_since` the episode the channel's alert shows (NULL: none open). */
    downSince: bigint('down_since'),
    alertedSince: bigint('alerted_since'),
    pingCount: integer('ping_count').notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index, uniqueIndex }) => [
    uniqueIndex('heartbeat_checks_uuid_uq').on(t.pingUuid),
    uniqueIndex('heartbeat_checks_ws_slug_uq').on(t.workspaceId, t.slug),
    index('heartbeat_checks_channel_idx').on(t.channelId),
    index('heartbeat_checks_down_at_idx').on(t.downAt),
  ],
);

/** A check's received pings, newest kept (the pruning keeps the last ones per check). `body` is the first 10 KB, as text. */
export const [heartbeatPings, pgHeartbeatPings] = table(
  'heartbeat_pings',
  {
    id: autoId('id'),
    checkId: text('check_id')
      .notNull()
      .references(() => heartbeatChecks.id, { onDelete: 'cascade' }),
    n: integer('n').notNull(),
    kind: text('kind', { enum: ['success', 'fail', 'start', 'log'] }).notNull(),
    exitStatus: integer('exit_status'),
    rid: text('rid'),
    method: text('method').notNull(),
    userAgent: text('user_agent'),
    body: text('body'),
    durationMs: bigint('duration_ms'),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { index }) => [index('heartbeat_pings_check_idx').on(t.checkId, t.n)],
);

/** The per-workspace ping key of the slug form `/ping/{ping-key}/{slug}` (22 URL-safe characters, never UUID-shaped). */
export const [heartbeatPingKeys, pgHeartbeatPingKeys] = table(
  'heartbeat_ping_keys',
  {
    workspaceId: text('workspace_id')
      .primaryKey()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    pingKey: text('ping_key').notNull(),
    createdAt: bigint('created_at').notNull(),
  },
  (t, { uniqueIndex }) => [uniqueIndex('heartbeat_ping_keys_key_uq').on(t.pingKey)],
);
