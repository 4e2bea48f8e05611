import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/admin.js';
import { loadConfig } from '../src/config.js';
import type { Channel } from '../src/http/schemas.js';
import { openServices } from '../src/services.js';
import { callOf, testEngine, tempDir } from './helpers/harness.js';
import { createApp } from '../src/http/app.js';
import { freshDatabase, type FreshDatabase } from './helpers/pg.js';
import { readRows } from './helpers/other-connection.js';
import { eventually } from './helpers/poll.js';

type ChannelJson = z.infer<typeof Channel>;

/**
 * Each test gets an installation of its own on testEngine(): a DATA_DIR, and on PostgreSQL a fresh
 * database (dropped after) that the CLI, its child processes and the services are pointed at by
 * DATABASE_URL, as a node of a cluster is configured.
 */
let dir: string;
let fresh: FreshDatabase | undefined;
let env: Record<string, string>;
let h: { close(): Promise<void> } | undefined;
beforeEach(async () => {
  dir = tempDir();
  fresh = testEngine() === 'postgres' ? await freshDatabase() : undefined;
  env = { DATA_DIR: dir, LOG_LEVEL: 'silent', ...(fresh ? { DATABASE_URL: fresh.url, PG_POOL_MAX: '4' } : {}) };
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await fresh?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The installation's services, as the server (or any other caller of the domain) opens them. */
const services = () => openServices(loadConfig({ ...env, PUBLIC_URL: 'http://alertbridge.test', AVATAR_BASE_URL: '' }));

/** Runs a command that must succeed (exit 0, nothing on stderr, one JSON line) and returns its JSON (typed by the caller: the members it uses). */
async function admin<T = { id: string }>(...argv: string[]): Promise<T> {
  const r = await runAdmin(argv, env);
  expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout) as T;
}

/** Runs a command that must fail with `code` (2: usage or validation, 1: look-up or conflict): nothing on stdout, the reason on stderr. */
async function adminFails(code: 1 | 2, ...argv: string[]) {
  const r = await runAdmin(argv, env);
  expect(r.code, `${argv.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toBe('');
  return r;
}

/** Rows read straight from the database through a connection of the test's own (the SQLite file read-only, or a PostgreSQL client). */
function rows<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
  return readRows<T>(fresh ? { url: fresh.url } : { dbFile: loadConfig(env).dbFile }, sql);
}

/** Row counts straight from the database: the proof that a refused command wrote nothing (count(*) is int8 on PostgreSQL: read as a number). */
async function counts() {
  const n = (table: string) => `(SELECT count(*) FROM ${table})`;
  const [row] = await rows(`SELECT ${n('workspaces')} AS w, ${n('users')} AS u, ${n('memberships')} AS m, ${n('channels')} AS c, ${n('api_tokens')} AS t`);
  return { workspaces: Number(row!.w), users: Number(row!.u), memberships: Number(row!.m), channels: Number(row!.c), tokens: Number(row!.t) };
}

/** A command refused before the database was opened: no file in DATA_DIR (not even an empty SQLite file) and, on PostgreSQL, no table (the migrations never ran). */
async function expectDatabaseUntouched() {
  expect(fs.readdirSync(dir)).toEqual([]);
  if (fresh) expect(await rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).toEqual([]);
}

/** The compiled CLI as a separate process, as `npm run admin` runs it (test/global-setup.ts builds dist/), with the installation's environment. */
function adminProcess(...argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli/admin.js', ...argv], { env: { PATH: process.env.PATH, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('admin CLI', () => {
  it('sets up a workspace end to end and the token works on the API', async () => {
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    expect(ws).toEqual({ id: expect.stringMatching(/^ws_/), name: 'Acme' });
    const user = await admin('user', 'create', '--email', 'jane@acme.test', '--name', 'Jane');
    expect(user).toEqual({ id: expect.stringMatching(/^usr_/), email: 'jane@acme.test', name: 'Jane' });
    expect(await admin('member', 'add', '--workspace', ws.id, '--user', 'jane@acme.test', '--role', 'admin')).toMatchObject({ role: 'admin' });
    const ch = await admin<{ id: string; webhookToken: string }>('channel', 'create', '--workspace', ws.id, '--name', 'Ops Alerts', '--icon', '🚨', '--private');
    expect(ch).toEqual({ id: expect.stringMatching(/^ch_/), name: 'Ops Alerts', slug: 'ops-alerts', icon: '🚨', isPrivate: true, webhookToken: expect.stringMatching(/^whk_/) });
    expect(await admin('channel', 'add-member', '--channel', ch.id, '--user', user.id)).toEqual({ channelId: ch.id, userId: user.id });
    const tok = await admin<{ id: string; token: string }>('token', 'create', '--workspace', ws.id, '--user', user.id, '--name', 'ci');
    expect(tok).toEqual({ readOnly: false, id: expect.stringMatching(/^tok_/), token: expect.stringMatching(/^ab_[0-9a-f]{48}$/) });
    const list = await admin<{ tokens: Record<string, string | null>[] }>('token', 'list', '--workspace', ws.id);
    expect(JSON.stringify(list)).not.toContain(tok.token);
    expect(list.tokens[0]).toMatchObject({ id: tok.id, name: 'ci', hint: `…${tok.token.slice(-4)}`, revokedAt: null });
    const rotated = await admin<{ webhookToken: string }>('channel', 'rotate-webhook', '--channel', 'ops-alerts');
    expect(rotated.webhookToken).not.toBe(ch.webhookToken);

    // The same installation served by the app: the token and the private channel work.
    const s = await services();
    const served = { call: callOf(createApp(s)), close: async () => s.close() };
    h = served;
    const channels = (await (await served.call('GET', '/api/channels', { token: tok.token })).json()) as ChannelJson[];
    expect(channels.map((c) => c.slug)).toEqual(['ops-alerts']);
    expect((await served.call('POST', `/api/webhook/${rotated.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);
    expect((await served.call('POST', `/api/webhook/${ch.webhookToken}`, { json: { title: 'x' } })).status).toBe(404);
    expect(await admin('usage', '--workspace', ws.id)).toEqual({ workspaceId: ws.id, months: [{ month: expect.stringMatching(/^\d{4}-\d\d$/), events: 1 }] });

    // A rotation by the CLI (another connection) takes effect for the running server, which had the channel cached: on
    // PostgreSQL once the COMMIT's notification reaches it (milliseconds, docs/cluster.md), not after
    // the cache's 60 s TTL; at once on SQLite (cli-sqlite.test.ts). Polled with an empty body: a request that still passed stores nothing (400).
    const again = await admin<{ webhookToken: string }>('channel', 'rotate-webhook', '--channel', ch.id);
    await eventually(async () => (await served.call('POST', `/api/webhook/${rotated.webhookToken}`, { json: {} })).status === 404, 'the old webhook URL refused', {
      timeoutMs: 3_000,
    });
    expect((await served.call('POST', `/api/webhook/${rotated.webhookToken}`, { json: { title: 'x' } })).status).toBe(404);
    expect((await served.call('POST', `/api/webhook/${again.webhookToken}`, { json: { title: 'x' } })).status).toBe(201);

    // While the server runs: revoke and remove take effect at once.
    await admin('channel', 'remove-member', '--channel', ch.id, '--user', user.id);
    expect(((await (await served.call('GET', '/api/channels', { token: tok.token })).json()) as ChannelJson[]).map((c) => c.slug)).toEqual([]);
    await admin('member', 'remove', '--workspace', ws.id, '--user', user.id);
    expect(((await (await served.call('GET', '/api/channels', { token: tok.token })).json()) as { reason: string }).reason).toBe('not_a_workspace_member');
    await admin('member', 'add', '--workspace', ws.id, '--user', user.id);
    expect(await admin('token', 'revoke', '--id', tok.id)).toMatchObject({ revoked: true });
    expect(((await (await served.call('GET', '/api/channels', { token: tok.token })).json()) as { reason: string }).reason).toBe('unknown_token');
  });

  it('answers a usage error with exit 2 and the command usage, before the database is even opened', async () => {
    const usageOf = (argv: string[], message: string, usage: string) => async () =>
      expect((await adminFails(2, ...argv)).stderr).toBe(`${argv.slice(0, 2).join(' ')}: ${message}\nusage: ${argv.slice(0, 2).join(' ')} ${usage}\n`);
    await usageOf(['user', 'create'], 'missing --email', '--email E [--name N]')();
    await usageOf(['workspace', 'create', '--name'], '--name needs a value', '--name N')();
    await usageOf(['workspace', 'create', '--name', '--private'], '--name needs a value (write --name=--private if that is the value)', '--name N')();
    await usageOf(['token', 'list', '--workspace', 'W', 'extra'], 'unexpected argument "extra" (flags look like --name value)', '--workspace W')();
    const channelUsage = '--workspace W --name N [--slug S] [--icon EMOJI] [--private]';
    await usageOf(['channel', 'create', '--workspace', 'W', '--name', 'x', '--private=yes'], '--private takes no value', channelUsage)();
    await usageOf(['channel', 'create', '--workspace', 'W', '--name', 'x', '--private', 'false'], 'unexpected argument "false" (flags look like --name value)', channelUsage)();
    await usageOf(['member', 'add', '--workspace', 'w', '--user', 'u', '--role', 'king'], '--role must be one of owner, admin, member', '--workspace W --user U [--role owner|admin|member]')();
    await usageOf(['notify', 'status', '--limit', '0'], '--limit must be a whole number from 1 to 1000', '[--limit N]')();
    // Digits only: an exponent or a sign is refused, not read as a number; the audit limit is the same check with its own range.
    await usageOf(['notify', 'status', '--limit', '1e2'], '--limit must be a whole number from 1 to 1000', '[--limit N]')();
    expect((await adminFails(2, 'audit', '--workspace', 'W', '--limit', '20000')).stderr).toBe(
      'audit: --limit must be a whole number from 1 to 10000\nusage: audit --workspace W [--limit N]\n',
    );
    expect((await adminFails(2, 'frobnicate')).stderr).toMatch(/^unknown command "frobnicate"\n\nUsage:/);
    expect((await adminFails(2)).stderr).toMatch(/^Usage:/);
    // Refused before anything was opened: not even an empty database file was created.
    await expectDatabaseUntouched();
  });

  it('answers a value the domain refuses with exit 2 and a look-up that fails with exit 1; nothing is written', async () => {
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    await admin('user', 'create', '--email', 'jane@acme.test');
    const before = await counts();
    expect((await adminFails(2, 'workspace', 'create', '--name', '   ')).stderr).toBe('workspace create: workspace name must not be empty\n');
    expect((await adminFails(2, 'user', 'create', '--email', 'jane.acme.test')).stderr).toBe('user create: not an e-mail address: jane.acme.test\n');
    expect((await adminFails(2, 'channel', 'create', '--workspace', ws.id, '--name', 'Ops', '--slug', 'Ops Alerts')).stderr).toBe(
      'channel create: slug must be lower-case letters, digits and dashes (got Ops Alerts)\n',
    );
    expect((await adminFails(2, 'channel', 'create', '--workspace', ws.id, '--name', 'x'.repeat(101))).stderr).toBe('channel create: channel name must be 1 to 100 characters\n');

    expect((await adminFails(1, 'token', 'revoke', '--id', 'tok_nope')).stderr).toBe('token revoke: token tok_nope not found\n');
    expect((await adminFails(1, 'channel', 'create', '--workspace', 'ws_nope', '--name', 'Ops')).stderr).toBe('channel create: workspace ws_nope not found\n');
    expect((await adminFails(1, 'member', 'add', '--workspace', ws.id, '--user', 'nobody@acme.test')).stderr).toBe('member add: user nobody@acme.test not found\n');
    expect((await adminFails(1, 'channel', 'rotate-webhook', '--channel', 'nope')).stderr).toBe('channel rotate-webhook: channel nope not found\n');
    expect(await counts()).toEqual(before);
  });

  it('explains itself: --help for all commands, a group, or one command', async () => {
    const help = await runAdmin(['--help'], env);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const c of ['workspace create', 'token revoke', 'channel rotate-webhook', 'member remove', 'usage', 'notify status']) expect(help.stdout).toContain(`  ${c} `);
    expect(help.stdout).toContain('--workspace W --user U [--role owner|admin|member]');
    expect(help.stdout).toContain('2 usage or validation error, 1 look-up');

    const group = await runAdmin(['token', '--help'], env);
    expect(group.code).toBe(0);
    expect(group.stdout.match(/^ {2}\S.*$/gm)?.map((l) => l.trim().split(/\s{2,}/)[0])).toEqual(['token create', 'token list', 'token revoke']);

    const one = await runAdmin(['channel', 'create', '--help'], env);
    expect(one).toEqual({
      code: 0,
      stdout: 'usage: channel create --workspace W --name N [--slug S] [--icon EMOJI] [--private]\n\ncreate a channel and print its webhook token\n',
      stderr: '',
    });
    await expectDatabaseUntouched();
  });

  it('refuses a taken slug or e-mail with a clean conflict (exit 1), never a constraint message', async () => {
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    const ops = await admin('channel', 'create', '--workspace', ws.id, '--name', 'Ops');
    const before = await counts();
    // Given explicitly or derived from the name, the same slug in the same workspace is taken.
    expect((await adminFails(1, 'channel', 'create', '--workspace', ws.id, '--name', 'Other', '--slug', 'ops')).stderr).toBe(
      `channel create: slug ops is already used by channel ${ops.id} in workspace ${ws.id}\n`,
    );
    expect((await adminFails(1, 'channel', 'create', '--workspace', ws.id, '--name', 'OPS!')).stderr).toContain(`slug ops is already used by channel ${ops.id}`);
    const jane = await admin('user', 'create', '--email', 'jane@acme.test');
    expect((await adminFails(1, 'user', 'create', '--email', 'JANE@acme.test')).stderr).toBe(`user create: a user with e-mail JANE@acme.test already exists (${jane.id})\n`);
    expect(await counts()).toEqual({ ...before, users: before.users + 1 });
    // Another workspace may use the slug.
    const other = await admin('workspace', 'create', '--name', 'Other');
    expect(await admin('channel', 'create', '--workspace', other.id, '--name', 'Ops')).toMatchObject({ slug: 'ops' });

    // The domain error carries a conflict code (409 over HTTP), not a validation or storage error.
    const s = await services();
    try {
      await expect(s.accounts.createChannel({ workspaceId: ws.id, name: 'Ops' })).rejects.toThrow(expect.objectContaining({ code: 'slug-taken' }));
      await expect(s.accounts.createUser('Jane@Acme.test')).rejects.toThrow(expect.objectContaining({ code: 'email-taken' }));
    } finally {
      await s.close();
    }
  });

  it('two CLI processes racing for one slug: one channel, and the loser gets the clean conflict', async () => {
    const ws = await admin('workspace', 'create', '--name', 'Acme');
    for (const slug of ['race-1', 'race-2', 'race-3']) {
      const [a, b] = await Promise.all([
        adminProcess('channel', 'create', '--workspace', ws.id, '--name', slug),
        adminProcess('channel', 'create', '--workspace', ws.id, '--name', slug),
      ]);
      const [won, lost] = a!.code === 0 ? [a!, b!] : [b!, a!];
      expect([won.code, lost.code]).toEqual([0, 1]);
      const created = JSON.parse(won.stdout) as { id: string; slug: string };
      expect(created.slug).toBe(slug);
      expect(lost).toEqual({ code: 1, stdout: '', stderr: `channel create: slug ${slug} is already used by channel ${created.id} in workspace ${ws.id}\n` });
    }
    expect((await counts()).channels).toBe(3);
  });

  it('refuses an unknown flag instead of ignoring it, with the usage exit code', async () => {
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
    const s = await services();
    try {
      await expect(s.usage.report('ws_nope')).rejects.toThrow('workspace ws_nope not found');
      await expect(s.accounts.listMembers('ws_nope')).rejects.toThrow('workspace ws_nope not found');
      await expect(s.accounts.addChannelMember(ch.id, sam.id)).rejects.toThrow(`user ${sam.id} is not a member of workspace ${ws.id}`);
      expect(await rows('SELECT user_id FROM channel_members')).toEqual([{ user_id: jane.id }]);
    } finally {
      await s.close();
    }
  });
});
