import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, postAlert, seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';

// Read-only API tokens over real HTTP on testEngine(): they read and mark read; anything that would
// change an alert for everyone is a 403 problem that stores nothing. Existing tokens keep full access.

let h: Harness | undefined;
let d: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  await d?.close();
  h = undefined;
  d = undefined;
});

const cli = async (harness: Harness, ...argv: string[]) => {
  const env = { DATA_DIR: harness.config.dataDir, LOG_LEVEL: 'silent', ...(harness.config.databaseUrl ? { DATABASE_URL: harness.config.databaseUrl } : {}) };
  const r = await runAdmin(argv, env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

describe('read-only tokens', () => {
  it('token create --read-only: reads and read state pass, status changes are a 403 problem that changes nothing', async () => {
    h = await startHarness({ serve: true });
    const seed = await seedWorkspace(h.services);
    const created = await cli(h, 'token', 'create', '--workspace', seed.ws.id, '--user', seed.member.id, '--name', 'wallboard', '--read-only');
    expect(created).toMatchObject({ readOnly: true });
    const token = created.token as string;
    const list = await cli(h, 'token', 'list', '--workspace', seed.ws.id);
    expect((list.tokens as { name: string; readOnly: boolean }[]).map((t) => [t.name, t.readOnly])).toEqual([
      ['owner laptop', false], ['member laptop', false], ['wallboard', true],
    ]);

    const { body } = await postAlert(h, seed.general.webhookToken, { title: 'Disk full', level: 'error' });
    const id = (body as { alertId: string }).alertId;
    expect((await h.call('GET', `/api/alerts/${id}`, { token })).status).toBe(200);
    expect((await h.call('GET', `/api/channels/${seed.general.id}/alerts`, { token })).status).toBe(200);

    for (const change of [{ isRead: true, status: 'resolved' }, { status: 'acknowledged' }, { snoozedUntil: null }]) {
      const res = await h.call('PATCH', `/api/alerts/${id}`, { token, json: change });
      expect(res.status, JSON.stringify(change)).toBe(403);
      const problem = await bodyOf.problem(res);
      expect(problem.type).toMatch(/\/problems\/read-only-token$/);
      expect(problem.detail).toContain('read-only');
    }
    // Nothing of the refused request was applied, its isRead included.
    expect((await bodyOf.alert(await h.call('GET', `/api/alerts/${id}`, { token }))).isRead).toBe(false);

    const read = await h.call('PATCH', `/api/alerts/${id}`, { token, json: { isRead: true } });
    expect(read.status).toBe(200);
    expect((await bodyOf.alert(read)).isRead).toBe(true);
    expect((await h.call('POST', '/api/alerts/mark-all-read', { token })).status).toBe(200);
    expect((await h.call('DELETE', `/api/alerts/${id}`, { token })).status).toBe(403);

    // A token created before read-only tokens existed (and any created without the flag) keeps full access.
    const full = await h.call('PATCH', `/api/alerts/${id}`, { token: seed.memberToken, json: { isRead: false, status: 'acknowledged' } });
    expect(full.status).toBe(200);
    expect(Boolean((await h.query<{ readOnly: unknown }>('SELECT read_only AS "readOnly" FROM api_tokens WHERE name = ?', ['member laptop']))[0]!.readOnly)).toBe(false);
  });

  it('the dashboard creates one with a checkbox and lists its access', async () => {
    d = await startDashboard();
    const a = d.services.accounts;
    const ws = await a.createWorkspace('Acme');
    const owner = await a.createUser('owner@acme.test', 'Olive Owner');
    await a.addMember(ws.id, owner.id, 'owner');
    const c = new DashClient(d);
    await c.signInWithLink(owner.id);
    await c.get('/tokens');
    const created = await c.post('/tokens', { name: 'tv', 'read-only': 'on' });
    expect(created.res.status).toBe(303); // Post/Redirect/Get: the token is shown once on the page it leads to
    await c.post('/tokens', { name: 'ci' });
    const page = await c.get('/tokens');
    const rowOf = (name: string) => new RegExp(`<th scope="row">${name}</th>.*?</tr>`, 's').exec(page.html)?.[0] ?? '';
    expect(rowOf('tv')).toContain('Read only');
    expect(rowOf('ci')).toContain('Full');
    const stored = await d.query<{ name: string; readOnly: unknown }>('SELECT name, read_only AS "readOnly" FROM api_tokens ORDER BY created_at, name');
    expect(stored.map((r) => [r.name, Boolean(r.readOnly)]).sort()).toEqual([['ci', false], ['tv', true]]);
  });
});
