import { UsageError, type Command } from '../command.js';
import type { Services } from '../../services.js';
import { CHAT_CHANNEL_DEFAULT_LEVEL, DEFAULT_LEVEL, NOTIFY_LEVELS, type NotifyLevel } from '../../notify/preferences.js';

/** E-mail preferences and a look at the outbox. */
export const notifyCommands: Command[] = [
  {
    name: 'notify set',
    usage: '--user U --channel C --level all|important|none',
    summary: 'set which alerts of a channel a user gets by e-mail (important = warnings and errors)',
    run: (s, f) => {
      const level = f.require('level');
      if (!(NOTIFY_LEVELS as readonly string[]).includes(level)) throw new UsageError(`--level must be one of ${NOTIFY_LEVELS.join(', ')}`);
      const user = s.accounts.requireUser(f.require('user'));
      const channel = channelOfUser(s, user.id, f.require('channel'));
      return { ...s.notifyPrefs.set(user.id, channel.id, level as NotifyLevel), channelSlug: channel.slug, email: user.email };
    },
  },
  {
    name: 'notify get',
    usage: '--user U',
    summary: "a user's e-mail level for every channel they can see (isDefault: nothing set)",
    run: (s, f) => {
      const user = s.accounts.requireUser(f.require('user'));
      return {
        userId: user.id,
        email: user.email,
        defaults: { channel: DEFAULT_LEVEL, chatConnectedChannel: CHAT_CHANNEL_DEFAULT_LEVEL },
        channels: s.notifyPrefs.list(user.id),
      };
    },
  },
  {
    name: 'notify status',
    usage: '[--limit N]',
    summary: 'outbox counts by state and the latest failures with their reasons',
    run: (s, f) => {
      const limit = Number(f.get('limit') ?? 20);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
      const db = s.db.sqlite;
      const count = (table: string) =>
        Object.fromEntries((db.prepare(`SELECT state, count(*) AS n FROM ${table} GROUP BY state`).all() as { state: string; n: number }[]).map((r) => [r.state, r.n]));
      const iso = (ms: number) => new Date(ms).toISOString();
      const failures = (
        db
          .prepare(
            `SELECT 'delivery' AS what, d.job_id AS jobId, NULL AS digestId, d.user_id AS userId, u.email, d.alert_id AS alertId, d.attempts, d.last_error AS lastError, d.updated_at AS at
             FROM notification_deliveries d LEFT JOIN users u ON u.id = d.user_id WHERE d.state = 'failed'
             UNION ALL
             SELECT 'digest', NULL, g.id, g.user_id, u.email, NULL, g.attempts, g.last_error, g.updated_at
             FROM notification_digests g LEFT JOIN users u ON u.id = g.user_id WHERE g.state = 'failed'
             UNION ALL
             SELECT 'job', j.id, NULL, NULL, NULL, j.alert_id, j.attempts, j.last_error, j.created_at
             FROM notification_jobs j WHERE j.state = 'failed'
             ORDER BY at DESC LIMIT ?`,
          )
          .all(limit) as { at: number }[]
      ).map((r) => ({ ...r, at: iso(r.at) }));
      return {
        email: s.config.smtpUrl ? 'on' : 'off (set SMTP_URL)',
        jobs: count('notification_jobs'),
        deliveries: count('notification_deliveries'),
        digests: count('notification_digests'),
        failures,
      };
    },
  },
];

/** A slug is looked up in the user's own workspaces first, so `--channel general` works when other workspaces have one too. */
function channelOfUser(s: Services, userId: string, ref: string): { id: string; slug: string } {
  const mine = s.db.sqlite
    .prepare(
      `SELECT c.id, c.slug FROM channels c JOIN memberships m ON m.workspace_id = c.workspace_id AND m.user_id = ?
       WHERE c.id = ? OR c.slug = ?`,
    )
    .all(userId, ref, ref) as { id: string; slug: string }[];
  if (mine.length === 1) return mine[0]!;
  if (mine.length > 1) throw new UsageError(`slug ${ref} exists in several of the user's workspaces: use the channel id`);
  return s.accounts.requireChannel(ref);
}
