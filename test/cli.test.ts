import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/admin.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { createHarness, tempDir, type Harness } from './helpers/harness.js';
import fs from 'node:fs';

let dir: string;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs a command that must succeed (exit 0, nothing on stderr, one JSON line) and returns its JSON. */
async function admin(...argv: string[]) {
  const r = await runAdmin(argv, { DATA_DIR: dir, LOG_LEVEL: 'silent' });
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout);
}

/** Runs a command that must fail with `code` (2: usage, 1: lookup or refusal): nothing on stdout, the reason on stderr. */
async function adminFails(code: 1 | 2, ...argv: string[]) {
  const r = await runAdmin(argv, { DATA_DIR: dir, LOG_LEVEL: 'silent' });
  expect(r.code, `${argv.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toBe('');
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
    expect((await adminFails(2, 'user', 'create')).stderr).toMatch(/missing --email/);
    expect((await adminFails(2, 'frobnicate')).stderr).toMatch(/unknown command/);
    expect((await adminFails(1, 'token', 'revoke', '--id', 'tok_nope')).stderr).toMatch(/not found/);
    expect((await adminFails(2, 'member', 'add', '--workspace', 'w', '--user', 'u', '--role', 'king')).stderr).toMatch(
      /--role must be one of owner, admin, member/,
    );
    const help = await runAdmin(['--help'], { DATA_DIR: dir });
    expect(help.code).toBe(0);
    for (const c of ['workspace create', 'token revoke', 'channel rotate-webhook', 'member remove', 'usage']) expect(help.stdout).toContain(c);
    expect(help.stdout).toContain('--workspace W --user U [--role owner|admin|member]');
  });

  it('refuses an unknown flag instead of ignoring it, with the usage exit code', async () => {
    dir = tempDir();
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    const typo = await adminFails(2, 'channel', 'create', '--workspace', ws.id, '--name', 'x', '--privte');
    expect(typo.stderr).toBe(
      `channel create: unknown flag --privte (see --help)\nusage: channel create --workspace W --name N [--slug S] [--icon EMOJI] [--private]\n`,
    );
    // Nothing was created: the slug is still free, and the same command spelled right makes a private channel.
    expect(await admin('channel', 'create', '--workspace', ws.id, '--name', 'x', '--private')).toMatchObject({ slug: 'x', isPrivate: true });
    // With a value and in the --flag=value form too; a flag of another command is unknown here.
    expect((await adminFails(2, 'workspace', 'create', '--name', 'B', '--nmae', 'C')).stderr).toContain('unknown flag --nmae (see --help)');
    expect((await adminFails(2, 'workspace', 'create', '--name=B', '--private=true')).stderr).toContain('unknown flag --private (see --help)');
    expect((await adminFails(2, 'token', 'list', '--workspace', ws.id, '--user', 'x')).stderr).toContain('unknown flag --user');
    // Every flag a usage string names is accepted: a bracketed optional one, the --flag=value form, a name with a dash.
    expect(await admin('workspace', 'create', '--name=B')).toMatchObject({ name: 'B' });
    expect(await admin('notify', 'status', '--limit', '5')).toMatchObject({ failures: [] });
    expect((await adminFails(1, 'channel', 'connect-discord', '--channel', 'nope', '--discord-channel', '123456789012345678')).stderr).not.toContain('unknown flag');
  });

  it('refuses dead data: a channel member outside the workspace; unknown workspaces are errors, not empty lists', async () => {
    dir = tempDir();
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    const other = await admin('workspace', 'create', '--name', 'Other');
    const jane = await admin('user', 'create', '--email', 'jane@acme.test');
    const sam = await admin('user', 'create', '--email', 'sam@other.test');
    await admin('member', 'add', '--workspace', ws.id, '--user', jane.id);
    await admin('member', 'add', '--workspace', other.id, '--user', sam.id);
    const ch = await admin('channel', 'create', '--workspace', ws.id, '--name', 'Ops', '--private');

    const outsider = await adminFails(1, 'channel', 'add-member', '--channel', ch.id, '--user', 'sam@other.test');
    expect(outsider.stderr).toBe(`channel add-member: user ${sam.id} is not a member of workspace ${ws.id}\n`);
    // The same check, the same words, as for a token.
    expect((await adminFails(1, 'token', 'create', '--workspace', ws.id, '--user', sam.id)).stderr).toBe(
      `token create: user ${sam.id} is not a member of workspace ${ws.id}\n`,
    );
    expect(await admin('channel', 'add-member', '--channel', ch.id, '--user', 'jane@acme.test')).toEqual({ channelId: ch.id, userId: jane.id });

    expect((await adminFails(1, 'member', 'list', '--workspace', 'ws_nope')).stderr).toBe('member list: workspace ws_nope not found\n');
    expect(await admin('member', 'list', '--workspace', ws.id)).toEqual({
      workspaceId: ws.id,
      members: [{ id: jane.id, email: 'jane@acme.test', name: 'jane', role: 'member' }],
    });
    expect((await adminFails(1, 'usage', '--workspace', 'ws_nope')).stderr).toBe('usage: workspace ws_nope not found\n');
    expect(await admin('usage', '--workspace', ws.id)).toEqual({ workspaceId: ws.id, months: [] });

    // The rule lives in the domain, not in the CLI: every caller gets it.
    const s = createServices(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
    try {
      expect(() => s.usage.report('ws_nope')).toThrow('workspace ws_nope not found');
      expect(() => s.accounts.listMembers('ws_nope')).toThrow('workspace ws_nope not found');
      expect(() => s.accounts.addChannelMember(ch.id, sam.id)).toThrow(`user ${sam.id} is not a member of workspace ${ws.id}`);
      expect(s.db.sqlite.prepare('SELECT user_id AS userId FROM channel_members').all()).toEqual([{ userId: jane.id }]);
    } finally {
      s.close();
    }
  });
});
