import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A seeded installation, and the admin CLI run against it as an operator runs it: its DATA_DIR, and its DATABASE_URL on PostgreSQL. */
async function setup() {
  h = await startHarness();
  const seed = await seedWorkspace(h.services);
  const env = { DATA_DIR: h.dir, ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) };
  const admin = async (...argv: string[]) => {
    const r = await runAdmin(argv, env);
    return { ...r, json: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined };
  };
  return { seed, admin };
}

describe('npm run admin -- notify', () => {
  it('set and get a preference; unset channels show the default', async () => {
    const { seed, admin } = await setup();
    const set = await admin('notify', 'set', '--user', 'member@acme.test', '--channel', 'general', '--level', 'important');
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ userId: seed.member.id, channelId: seed.general.id, level: 'important', channelSlug: 'general' });

    const got = await admin('notify', 'get', '--user', seed.member.id);
    expect(got.code).toBe(0);
    expect(got.json?.defaults).toEqual({ channel: 'all', chatConnectedChannel: 'none' });
    // the member cannot see the private channel, so it is not listed
    const channels = (got.json as { channels: { slug: string; level: string; isDefault: boolean }[] }).channels;
    expect(channels.map((c) => [c.slug, c.level, c.isDefault])).toEqual([
      ['general', 'important', false],
      ['deploys', 'all', true],
    ]);
  });

  it('refuses a bad level, and a channel the user cannot see', async () => {
    const { seed, admin } = await setup();
    const bad = await admin('notify', 'set', '--user', 'member@acme.test', '--channel', 'general', '--level', 'loud');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--level must be one of all, important, none');
    // A look-up that finds nothing the user can see: exit 1, like an unknown channel.
    const hidden = await admin('notify', 'set', '--user', 'member@acme.test', '--channel', 'security', '--level', 'all');
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain('cannot see channel');
    expect((await admin('notify', 'set', '--user', 'member@acme.test', '--channel', 'nope', '--level', 'all')).code).toBe(1);
    expect((await admin('notify', 'get', '--user', 'nobody@acme.test')).code).toBe(1);
    expect((await admin('notify', 'get', '--user', 'member@acme.test', '--level', 'all')).code).toBe(2);
    // Nothing was stored by the refusals.
    expect((await admin('notify', 'get', '--user', 'member@acme.test')).json?.channels).toEqual([
      expect.objectContaining({ slug: 'general', isDefault: true }),
      expect.objectContaining({ slug: 'deploys', isDefault: true }),
    ]);
    // A slug found in two of the user's workspaces is ambiguous: the command line must name the channel by id.
    expect((await admin('member', 'add', '--workspace', seed.other.id, '--user', 'member@acme.test')).code).toBe(0);
    const ambiguous = await admin('notify', 'set', '--user', 'member@acme.test', '--channel', 'general', '--level', 'none');
    expect(ambiguous).toMatchObject({ code: 2, stdout: '', stderr: "notify set: slug general exists in several of the user's workspaces: use the channel id\n" });
    expect((await admin('notify', 'set', '--user', 'member@acme.test', '--channel', seed.otherChannel.id, '--level', 'none')).json).toMatchObject({ channelId: seed.otherChannel.id, level: 'none' });
  });

  it('status shows outbox counts and failures with their reasons', async () => {
    const { admin } = await setup();
    const r = await admin('notify', 'status');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ email: 'off (set SMTP_URL)', jobs: {}, deliveries: {}, digests: {}, quietDigests: {}, pushes: {}, failures: [] });
  });
});
