import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlPreferenceRows } from '../../src/db/shared/preference-rows.js';
import { SqliteExecutor } from '../../src/db/sqlite/executor.js';
import { AppError } from '../../src/domain/errors.js';
import { ManualClock } from '../../src/lib/clock.js';
import { NotificationPreferences, type NotifyLevel, type PreferenceRows } from '../../src/domain/notification-preferences.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the e-mail preference rows and the recipient rule built on them:
 * the same rows on SQLite and PostgreSQL, the same answers through the real NotificationPreferences.
 * Owner o and member m in w1, x a former member whose channel-member row on the private channel
 * was left behind; general is public, security private (o only), chat is linked to Discord.
 */
const ch = (id: string, slug: string, isPrivate: boolean, createdAt: number) => ({
  id, workspace_id: 'w1', name: slug, slug, icon: '#', is_private: isPrivate, webhook_token: `whk_${id}`, created_at: createdAt,
});
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }, { id: 'w2', name: 'Other', created_at: 2 }]],
  ['users', ['o', 'm', 'x'].map((id) => ({ id, email: `${id}@a.test`, name: id.toUpperCase(), created_at: 1 }))],
  ['memberships', [
    { workspace_id: 'w1', user_id: 'o', role: 'owner', created_at: 1 },
    { workspace_id: 'w1', user_id: 'm', role: 'member', created_at: 2 },
    { workspace_id: 'w2', user_id: 'x', role: 'owner', created_at: 3 },
  ]],
  ['channels', [ch('general', 'general', false, 1), ch('security', 'security', true, 2), ch('chat', 'chat', false, 3)]],
  ['channel_members', [{ channel_id: 'security', user_id: 'o', created_at: 1 }, { channel_id: 'security', user_id: 'x', created_at: 1 }]],
  ['discord_links', [{ channel_id: 'chat', discord_channel_id: '123', created_at: 1 }]],
  ['notification_preferences', [{ user_id: 'm', channel_id: 'general', level: 'important', updated_at: 1 }]],
];

interface Engine extends EngineHandle {
  rows: PreferenceRows;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  let prefs: NotificationPreferences;
  const clock = new ManualClock(1_700_000_000_000);
  beforeAll(async () => {
    e = await open();
    prefs = new NotificationPreferences(e.rows, clock);
  });
  afterAll(() => e.close());
  const levels = async (channelId: string) => (await prefs.recipients(channelId)).map((r) => `${r.userId}:${r.level}`);
  const code = (p: Promise<unknown>) => p.then(() => 'ok', (err: unknown) => (err instanceof AppError ? err.code : String(err)));

  it('recipients: everyone who sees the channel, in membership order, with the stored level or the default', async () => {
    expect(await levels('general')).toEqual(['o:all', 'm:important']);
    // With the person's quiet hours (none here): the fan-out decides them from the same row.
    const noQuietHours = { quietZone: null, quietStart: null, quietEnd: null, quietMinLevel: null };
    expect(await prefs.recipient('general', 'm')).toEqual({ userId: 'm', email: 'm@a.test', name: 'M', level: 'important', ...noQuietHours });
    // A Discord-linked channel mirrors a conversation: nobody is mailed unless they ask.
    expect(await levels('chat')).toEqual(['o:none', 'm:none']);
  });

  it('a private channel reaches its members who are still workspace members, not a stale row', async () => {
    expect(await levels('security')).toEqual(['o:all']);
    expect(await prefs.recipient('security', 'm')).toBeUndefined();
    expect(await prefs.recipient('security', 'x')).toBeUndefined();
  });

  it('set stores a level, replaces it, and refuses a channel the user cannot see or an unknown level', async () => {
    expect(await prefs.set('o', 'chat', 'all')).toEqual({ userId: 'o', channelId: 'chat', level: 'all' });
    expect(await prefs.set('m', 'general', 'none')).toEqual({ userId: 'm', channelId: 'general', level: 'none' });
    expect(await levels('chat')).toEqual(['o:all', 'm:none']);
    expect(await levels('general')).toEqual(['o:all', 'm:none']);
    expect(await e.query('SELECT level, updated_at AS at FROM notification_preferences WHERE user_id = ? AND channel_id = ?', ['m', 'general'])).toEqual([{ level: 'none', at: clock.now() }]);
    expect(await code(prefs.set('m', 'security', 'all'))).toBe('not-found');
    expect(await code(prefs.set('x', 'general', 'all'))).toBe('not-found');
    expect(await code(prefs.set('o', 'general', 'loud' as NotifyLevel))).toBe('invalid-body');
    expect(await e.query('SELECT COUNT(*) AS n FROM notification_preferences')).toEqual([{ n: 2 }]);
  });

  it('list: every channel the user sees, oldest first, saying which levels are defaults', async () => {
    expect(await prefs.list('o')).toEqual([
      { channelId: 'general', slug: 'general', name: 'general', workspace: { id: 'w1', name: 'Acme' }, isPrivate: false, level: 'all', isDefault: true },
      { channelId: 'security', slug: 'security', name: 'security', workspace: { id: 'w1', name: 'Acme' }, isPrivate: true, level: 'all', isDefault: true },
      { channelId: 'chat', slug: 'chat', name: 'chat', workspace: { id: 'w1', name: 'Acme' }, isPrivate: false, level: 'all', isDefault: false },
    ]);
    expect((await prefs.list('m')).map((l) => `${l.channelId}:${l.level}:${l.isDefault}`)).toEqual(['general:none:false', 'chat:none:true']);
    expect(await prefs.list('x')).toEqual([]);
  });

  it('sees a preference written by another connection at once', async () => {
    await e.exec('UPDATE notification_preferences SET level = ? WHERE user_id = ? AND channel_id = ?', ['important', 'o', 'chat']);
    expect((await prefs.recipient('chat', 'o'))?.level).toBe('important');
  });
}

describe('preference rows on SQLite', () => {
  contract(async () => {
    const e = await sqliteEngine(FIXTURE);
    return { ...e, rows: new SqlPreferenceRows(new SqliteExecutor(e.db.sqlite)) };
  });
});

describePg('preference rows on PostgreSQL', () => {
  contract(async () => {
    const e = await pgEngine(FIXTURE);
    return { ...e, rows: new SqlPreferenceRows(new PgExecutor(e.db.pool)) };
  });
});
