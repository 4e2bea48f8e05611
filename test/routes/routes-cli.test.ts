import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { startHarness, seedWorkspace, type Harness } from '../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup(extraEnv: Record<string, string> = {}) {
  h = await startHarness({ env: { ROUTES_ALLOW_PRIVATE: '1', ...extraEnv } });
  const seed = await seedWorkspace(h.services);
  const env = { DATA_DIR: h.dir, ROUTES_ALLOW_PRIVATE: '1', ...extraEnv, ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) };
  const admin = async (...argv: string[]) => {
    const r = await runAdmin(argv, env);
    return { ...r, json: r.stdout ? (JSON.parse(r.stdout) as Record<string, unknown>) : undefined };
  };
  return { seed, admin, env };
}

describe('npm run admin -- route', () => {
  it('creates, lists (masked), updates and deletes routes; a webhook secret is shown once', async () => {
    const { seed, admin } = await setup();
    const hook = await admin('route', 'create', '--channel', seed.general.id, '--kind', 'webhook', '--url', 'https://hooks.example.com/in/abcdefgh1234');
    expect(hook.stderr).toBe('');
    expect(hook.code).toBe(0);
    expect(hook.json).toEqual({ id: expect.stringMatching(/^rt_/), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/) });

    const slack = await admin('route', 'create', '--channel', seed.deploys.id, '--kind', 'slack', '--url', 'https://hooks.slack.com/services/T000/B000/XXXXsecretZZZZ',
      '--min-level', 'warning', '--events', 'opened,resolved,acknowledged', '--source', 'ci', '--field', 'env=prod', '--field', 'team=core');
    expect(slack.code).toBe(0);
    expect(slack.json?.secret).toBeNull();

    const listed = (await admin('route', 'list')).json as { routes: Record<string, unknown>[] };
    expect(listed.routes).toHaveLength(2);
    expect(listed.routes[1]).toMatchObject({
      kind: 'slack', channelId: seed.deploys.id, target: 'hooks.slack.com/…ZZZZ', minLevel: 'WARNING',
      events: ['alert.opened', 'alert.resolved', 'alert.acknowledged'], source: 'ci',
      fields: [{ label: 'env', value: 'prod' }, { label: 'team', value: 'core' }], state: 'active', disabled: null,
    });
    // Targets never come back in the clear.
    expect(JSON.stringify(listed)).not.toContain('XXXXsecret');
    expect(JSON.stringify(listed)).not.toContain(hook.json!.secret as string);
    expect(((await admin('route', 'list', '--channel', seed.general.id)).json as { routes: unknown[] }).routes).toHaveLength(1);

    const paused = await admin('route', 'update', '--id', slack.json!.id as string, '--pause', '--events', 'updated');
    expect(paused.json).toMatchObject({ state: 'paused', pausedReason: 'paused by hand', events: ['alert.updated'] });
    const resumed = await admin('route', 'update', '--id', slack.json!.id as string, '--resume', '--url', 'https://hooks.slack.com/services/T1/B1/NEWWWWWWnew1');
    expect(resumed.json).toMatchObject({ state: 'active', target: 'hooks.slack.com/…new1' });

    expect((await admin('route', 'delete', '--id', hook.json!.id as string)).json).toEqual({ id: hook.json!.id, deleted: true });
    expect((await admin('route', 'delete', '--id', hook.json!.id as string)).code).toBe(1);
    expect(((await admin('route', 'list')).json as { routes: unknown[] }).routes).toHaveLength(1);
  });

  it('refuses bad input with exit 2 and stores nothing', async () => {
    const { admin, seed } = await setup();
    const cases: [string[], string][] = [
      [['--kind', 'pager', '--url', 'https://x.example.com/'], '--kind must be one of'],
      [['--kind', 'slack'], 'a slack route needs --url'],
      [['--kind', 'slack', '--url', 'https://x.example.com/', '--bot-token', 't'], '--bot-token does not apply to a slack route'],
      [['--kind', 'webhook', '--url', 'https://x.example.com/', '--secret', 'plain'], 'secret must be whsec_'],
      [['--kind', 'slack', '--url', 'ftp://x.example.com/'], 'url must be an http or https URL'],
      [['--kind', 'slack', '--url', 'https://x.example.com/', '--events', 'opened,exploded'], '--events takes opened'],
      [['--kind', 'slack', '--url', 'https://x.example.com/', '--field', 'novalue'], '--field takes label=value'],
      [['--kind', 'slack', '--url', 'https://x.example.com/', '--min-level', 'loud'], '--min-level must be one of'],
      [['--kind', 'ntfy', '--url', 'https://ntfy.example.com/a/b'], 'SERVER/TOPIC'],
      [['--kind', 'telegram', '--bot-token', '123:abc'], 'chatId is required'],
    ];
    for (const [flags, message] of cases) {
      const r = await admin('route', 'create', '--channel', seed.general.id, ...flags);
      expect({ flags, code: r.code }).toEqual({ flags, code: 2 });
      expect(r.stderr).toContain(message);
    }
    expect((await admin('route', 'create', '--channel', 'nope', '--kind', 'slack', '--url', 'https://x.example.com/')).code).toBe(1);
    expect(((await admin('route', 'list')).json as { routes: unknown[] }).routes).toEqual([]);
  });

  it('refuses loopback, private and metadata targets without ROUTES_ALLOW_PRIVATE', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const env = { DATA_DIR: h.dir, ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) };
    for (const url of ['http://127.0.0.1:9/x', 'http://[::1]/x', 'http://localhost/x', 'http://169.254.169.254/latest', 'http://10.0.0.5/x', 'http://[::ffff:127.0.0.1]/x', 'http://intranet/x']) {
      const r = await runAdmin(['route', 'create', '--channel', seed.general.id, '--kind', 'webhook', '--url', url], env);
      expect({ url, code: r.code }).toEqual({ url, code: 2 });
    }
  });

  it('seals targets under the key file (mode 0600): the database holds no secret in the clear; another key disables, never deletes', async () => {
    const { admin, env, seed } = await setup();
    const secretPath = 'T0SECRET/B0SECRET/tokentokentoken';
    const created = await admin('route', 'create', '--channel', seed.general.id, '--kind', 'telegram', '--bot-token', '123456:SUPERSECRETBOTTOKEN', '--chat-id=-100777', '--api-url', `https://api.example.com/${secretPath}`);
    expect(created.code).toBe(0);
    const keyFile = path.join(h!.dir, 'secrets.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const rows = await h!.query<{ target_sealed: string; target_hint: string }>('SELECT target_sealed, target_hint FROM routes');
    expect(JSON.stringify(rows)).not.toContain('SUPERSECRETBOTTOKEN');
    if (h!.engine === 'sqlite') {
      await h!.stopNodes();
      const file = fs.readFileSync(path.join(h!.dir, 'alertbridge.db')).toString('latin1') + (fs.existsSync(path.join(h!.dir, 'alertbridge.db-wal')) ? fs.readFileSync(path.join(h!.dir, 'alertbridge.db-wal')).toString('latin1') : '');
      expect(file).not.toContain('SUPERSECRETBOTTOKEN');
      expect(file).not.toContain(secretPath);
    }
    // Another key: the route stays, marked disabled with the reason; a test refuses with it.
    const otherKey = 'ab'.repeat(32);
    const listed = (await runAdmin(['route', 'list'], { ...env, SECRETS_KEY: otherKey }));
    const route = (JSON.parse(listed.stdout) as { routes: { disabled: string | null }[] }).routes[0]!;
    expect(route.disabled).toMatch(/sealed under key [0-9a-f]{8}, but SECRETS_KEY is key [0-9a-f]{8}/);
    const tested = await runAdmin(['route', 'test', '--id', created.json!.id as string], { ...env, SECRETS_KEY: otherKey });
    expect(tested.code).toBe(1);
    expect(tested.stderr).toContain('route disabled');
    const bad = await runAdmin(['route', 'list'], { ...env, SECRETS_KEY: 'short' });
    expect((JSON.parse(bad.stdout) as { routes: { disabled: string }[] }).routes[0]!.disabled).toContain('SECRETS_KEY is not a 32-byte key');
  });
});
