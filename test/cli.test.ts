import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/admin.js';
import { createHarness, tempDir, type Harness } from './helpers/harness.js';
import fs from 'node:fs';

let dir: string;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function admin(...argv: string[]) {
  const r = await runAdmin(argv, { DATA_DIR: dir, LOG_LEVEL: 'silent' });
  if (r.code === 0) {
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(r.stdout);
  }
  return r;
}

describe('admin CLI', () => {
  it('sets up a workspace end to end and the token works on the API', async () => {
    dir = tempDir();
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    expect(ws).toEqual({ id: expect.stringMatching(/^ws_/), name: 'Acme' });
    const user = await admin('user', 'create', '--email', 'jane@acme.test', '--name', 'Jane');
    expect(user).toEqual({ id: expect.stringMatching(/^usr_/), email: 'jane@acme.test', name: 'Jane' });
    expect(await admin('member', 'add', '--workspace', ws.id, '--user', 'jane@acme.test', '--role', 'admin')).toMatchObject({ role: 'admin' });
    const ch = await admin('channel', 'create', '--workspace', ws.id, '--name', 'Ops Alerts', '--icon', '🚨', '--private');
    expect(ch).toEqual({ id: expect.stringMatching(/^ch_/), name: 'Ops Alerts', slug: 'ops-alerts', icon: '🚨', isPrivate: true, webhookToken: expect.stringMatching(/^whk_/) });
    expect(await admin('channel', 'add-member', '--channel', ch.id, '--user', user.id)).toEqual({ channelId: ch.id, userId: user.id });
    const tok = await admin('token', 'create', '--workspace', ws.id, '--user', user.id, '--name', 'ci');
    expect(tok).toEqual({ id: expect.stringMatching(/^tok_/), token: expect.stringMatching(/^ab_[0-9a-f]{48}$/) });
    const list = await admin('token', 'list', '--workspace', ws.id);
    expect(JSON.stringify(list)).not.toContain(tok.token);
    expect(list.tokens[0]).toMatchObject({ id: tok.id, name: 'ci', hint: `…${tok.token.slice(-4)}`, revokedAt: null });
    const rotated = await admin('channel', 'rotate-webhook', '--channel', 'ops-alerts');
    expect(rotated.webhookToken).not.toBe(ch.webhookToken);

    // The same DATA_DIR served by the app: the token and the private channel work.
    h = createHarness({ dir });
    const channels = (await (await h.call('GET', '/api/channels', { token: tok.token })).json()) as any[];
    expect(channels.map((c) => c.slug)).toEqual(['ops-alerts']);
    expect((await h.call('POST', `/api/webhook/${rotated.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);
    expect((await h.call('POST', `/api/webhook/${ch.webhookToken}`, { json: { title: 'x' } })).status).toBe(404);
    expect(await admin('usage', '--workspace', ws.id)).toEqual({ workspaceId: ws.id, months: [{ month: expect.stringMatching(/^\d{4}-\d\d$/), events: 1 }] });

    // A rotation by the CLI (another connection) takes effect at once for the running server.
    const again = await admin('channel', 'rotate-webhook', '--channel', ch.id);
    expect((await h.call('POST', `/api/webhook/${rotated.webhookToken}`, { json: { title: 'x' } })).status).toBe(404);
    expect((await h.call('POST', `/api/webhook/${again.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);

    // While the server runs (WAL): revoke and remove take effect at once.
    await admin('channel', 'remove-member', '--channel', ch.id, '--user', user.id);
    expect(((await (await h.call('GET', '/api/channels', { token: tok.token })).json()) as any[]).map((c) => c.slug)).toEqual([]);
    await admin('member', 'remove', '--workspace', ws.id, '--user', user.id);
    expect(((await (await h.call('GET', '/api/channels', { token: tok.token })).json()) as any).reason).toBe('not_a_workspace_member');
    await admin('member', 'add', '--workspace', ws.id, '--user', user.id);
    expect((await admin('token', 'revoke', '--id', tok.id)).revoked).toBe(true);
    expect(((await (await h.call('GET', '/api/channels', { token: tok.token })).json()) as any).reason).toBe('unknown_token');
  });

  it('prints usage and lookup errors on stderr with a non-zero exit', async () => {
    dir = tempDir();
    const missing = await runAdmin(['user', 'create'], { DATA_DIR: dir });
    expect(missing.code).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/missing --email/);
    const unknown = await runAdmin(['frobnicate'], { DATA_DIR: dir });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown command/);
    const lookup = await runAdmin(['token', 'revoke', '--id', 'tok_nope'], { DATA_DIR: dir });
    expect(lookup.code).not.toBe(0);
    expect(lookup.stderr).toMatch(/not found/);
    const role = await runAdmin(['member', 'add', '--workspace', 'w', '--user', 'u', '--role', 'king'], { DATA_DIR: dir });
    expect(role.code).not.toBe(0);
    expect(role.stderr).toMatch(/--role/);
    const help = await runAdmin(['--help'], { DATA_DIR: dir });
    expect(help.code).toBe(0);
    for (const c of ['workspace create', 'token revoke', 'channel rotate-webhook', 'member remove', 'usage']) expect(help.stdout).toContain(c);
  });
});
