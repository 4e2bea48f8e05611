import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import type { Notifier } from '../../src/notify/outbox-worker.js';
import type { PushWorker } from '../../src/notify/push/push-worker.js';
import { DashClient, type DashHarness } from '../dashboard/helpers.js';
import type { Harness, seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import type { FakePushService } from '../helpers/push-service.js';
import type { SmtpSink } from '../helpers/smtp-sink.js';

/**
 * Steps of the no-secret-in-logs scenario (secrets-in-logs.test.ts), kept beside it so the test
 * file stays under 400 lines; the scenario runs them in the order its STEPS list names them.
 */
export interface Ctx {
  h: Harness;
  url: string;
  seed: Awaited<ReturnType<typeof seedWorkspace>>;
  sink: SmtpSink;
  notifier: Notifier;
  push: PushWorker;
  pushService: FakePushService;
  /** Registers a value that must never appear in a log line; returns it. */
  secret(label: string, value: string): string;
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
}

export interface Step {
  name: string;
  run(ctx: Ctx): Promise<void>;
}

/** The admin CLI's environment at trace level: the service's DATA_DIR, and its DATABASE_URL on PostgreSQL. */
export const cliEnv = (h: Harness) => ({ DATA_DIR: h.dir, LOG_LEVEL: 'trace', ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) });

export const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
export const expectStatus = async (res: Promise<Response>, status: number) => {
  const r = await res;
  await r.arrayBuffer();
  expect(r.status).toBe(status);
};

export const dashboardSignInStep: Step = {
  name: 'dashboard: password sign-in (hostile next, a user id as the address), a member revealing a webhook URL, usage, the manifest and icons',
  run: async (c) => {
    const s = c.h.services;
    const password = c.secret('dashboard password', `pw-${randomBytes(12).toString('hex')}`);
    await s.accountAuth.passwords.set(c.seed.member.id, password);
    const form = async (body: Record<string, string>, cookie = '') =>
      await c.h.app.request('/sign-in', {
        method: 'POST',
        headers: { origin: 'http://alertbridge.test', 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie },
        body: new URLSearchParams(body).toString(),
      });
    await expectStatus(form({ email: c.seed.member.id, password, next: '/usage' }), 401);
    const signedIn = await form({ email: 'member@acme.test', password, next: '/%0d%0a/evil.example' });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/');
    const cookie = signedIn.headers.getSetCookie().map((l) => l.split(';')[0]!).join('; ');
    for (const pair of cookie.split('; ')) c.secret(`member session cookie ${pair.split('=')[0]}`, pair.split('=')[1]!);
    const get = async (path: string) => await c.h.app.request(path, { headers: { cookie, accept: 'text/html' } });
    const revealed = await get(`/channels/${c.seed.general.id}/webhook`);
    expect(revealed.status).toBe(200);
    expect(await revealed.text()).toContain(c.seed.general.webhookToken);
    await expectStatus(get(`/sign-in?next=${encodeURIComponent('/\t/evil.example')}`), 303);
    await expectStatus(get('/usage'), 200);
    // The installable app's files, asked for with the session's cookie as a browser does.
    await expectStatus(get('/manifest.webmanifest'), 200);
    await expectStatus(get('/icons/icon-192.png'), 200);
    await expectStatus(get('/icons/..%2Ficon.svg'), 404);
  },
};

export const escalationStep: Step = {
  name: 'escalation: set from the channel settings (303, a refused value 400, a member 403) and the CLI, a pass run, turned off',
  run: async (c) => {
    const s = c.h.services;
    const links = s.accountAuth.signInLinks;
    const link = async (id: string) => `http://alertbridge.test/auth/link?t=${c.secret('sign-in link secret (escalation)', (await links.issue(id)).secret)}`;
    const dash = new DashClient({ app: c.h.app, origin: 'http://alertbridge.test', link } as unknown as DashHarness);
    await dash.signInWithLink(c.seed.owner.id);
    for (const [name, value] of dash.cookies) c.secret(`owner session cookie ${name} (escalation)`, value);
    const form = { escalation_level: 'ERROR', escalation_after: '10m', escalation_every: '5m', escalation_times: '2', [`escalate_to_${c.seed.member.id}`]: 'on' };
    const path = `/channels/${c.seed.general.id}/escalation`;
    expect((await dash.post(path, form)).res.status).toBe(303);
    // A secret pasted into a field is refused, shown back in the page, never logged.
    expect((await dash.post(path, { ...form, escalation_every: c.seed.general.webhookToken })).res.status).toBe(400);
    expect((await dash.post(`${path}/clear`, {})).res.status).toBe(303);
    const cli = await runAdmin(['channel', 'set-escalation', '--channel', c.seed.general.id, '--min-level', 'error', '--after', '30s', '--every', '1m', '--times', '1', '--then', 'owner@acme.test'], cliEnv(c.h));
    expect(cli.code).toBe(0);
    await expectStatus(c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 'escalating', level: 'error' })), 201);
    await s.escalation.pass.run();
    expect((await runAdmin(['channel', 'set-escalation', '--channel', c.seed.general.id, '--clear'], cliEnv(c.h))).code).toBe(0);
  },
};

export const accountEmailsStep: Step = {
  name: 'account e-mails: sign-in links asked for a known and an unknown address, an address change confirmed by its link, both links replayed',
  run: async (c) => {
    const s = c.h.services;
    const links = s.accountAuth.signInLinks;
    const dash = { app: c.h.app, origin: 'http://alertbridge.test', link: async (id: string) => `http://alertbridge.test/auth/link?t=${(await links.issue(id)).secret}` };
    const client = new DashClient(dash as unknown as DashHarness);
    const mailed = async (subject: string, to: string) => {
      await eventually(() => c.sink.messages.some((m) => m.subject === subject && m.rcpt.includes(to)), `${subject} to ${to}`);
      const text = c.sink.messages.find((m) => m.subject === subject && m.rcpt.includes(to))!.text;
      return new URL(/http:\/\/alertbridge\.test\/\S+/.exec(text)![0]);
    };
    expect((await client.submit('/sign-in/link', { email: 'member@acme.test' })).res.status).toBe(200);
    expect((await client.submit('/sign-in/link', { email: 'ghost@acme.test' })).res.status).toBe(200);
    const signIn = await mailed('Your Alertbridge sign-in link', 'member@acme.test');
    const t = c.secret('e-mailed sign-in link', signIn.searchParams.get('t')!);
    expect((await client.get(signIn.pathname + signIn.search)).res.status).toBe(200);
    expect((await client.post('/auth/link', { t }, { csrf: null })).res.status).toBe(303);
    expect((await client.post('/auth/link', { t }, { csrf: null })).res.status).toBe(410);
    for (const [name, value] of client.cookies) c.secret(`session cookie ${name} (link sign-in)`, value);
    await client.get('/profile');
    expect((await client.submit('/profile/email', { email: 'max.moved@acme.test' })).res.status).toBe(200);
    const confirm = await mailed('Confirm your Alertbridge e-mail address', 'max.moved@acme.test');
    const ct = c.secret('e-mailed address confirmation link', confirm.searchParams.get('t')!);
    expect((await new DashClient(dash as unknown as DashHarness).get(confirm.pathname + confirm.search)).res.status).toBe(303);
    expect((await client.get(confirm.pathname + confirm.search)).res.status).toBe(200);
    expect((await client.post('/profile/email/confirm', { t: ct })).res.status).toBe(303);
    expect((await client.post('/profile/email/confirm', { t: ct })).res.status).toBe(410);
    expect((await s.accounts.findUser(c.seed.member.id))?.email).toBe('max.moved@acme.test');
  },
};

export const invitationsStep: Step = {
  name: 'invitations: e-mailed, shown after a failed send, opened, accepted, re-opened, for an existing account, unknown',
  run: async (c) => {
    const links = c.h.services.accountAuth.signInLinks;
    const dash = { app: c.h.app, origin: 'http://alertbridge.test', link: async (id: string) => `http://alertbridge.test/auth/link?t=${(await links.issue(id)).secret}` };
    const owner = new DashClient(dash as unknown as DashHarness);
    await owner.signInWithLink(c.seed.owner.id);
    for (const [name, value] of owner.cookies) c.secret(`session cookie ${name} (inviter)`, value);
    const before = c.sink.messages.length;
    expect((await owner.submit('/members/invite', { email: 'invitee@acme.test', role: 'member' })).posted.status).toBe(303);
    await c.sink.waitFor(before + 1, 10_000);
    const mailed = c.secret('invitation secret (e-mailed)', /\/invite\?t=([A-Za-z0-9_-]{43})/.exec(c.sink.to('invitee@acme.test')[0]!.text)![1]!);
    const invitee = new DashClient(dash as unknown as DashHarness);
    expect((await invitee.get(`/invite?t=${mailed}`)).res.status).toBe(200);
    expect((await invitee.post('/invite/accept', { t: mailed, name: 'Ivy', password: 'short', repeat_password: 'short' }, { csrf: null })).res.status).toBe(400);
    expect((await invitee.post('/invite/accept', { t: mailed, name: 'Ivy' }, { csrf: null })).res.status).toBe(303);
    for (const [name, value] of invitee.cookies) c.secret(`session cookie ${name} (invitee)`, value);
    expect((await invitee.get(`/invite?t=${mailed}`)).res.status).toBe(410);
    // The send fails: the inviter is shown the link, and the failure is logged without it.
    c.sink.rejectNext(3, 550, 'Mailbox unavailable');
    const shown = await owner.submit('/members/invite', { email: 'stranger@other.test', role: 'admin' });
    expect(shown.res.status).toBe(200);
    const secret = c.secret('invitation secret (shown)', /\/invite\?t=([A-Za-z0-9_-]{43})/.exec(shown.html)![1]!);
    expect((await new DashClient(dash as unknown as DashHarness).get(`/invite?t=${secret}`)).res.status).toBe(303);
    expect((await new DashClient(dash as unknown as DashHarness).post('/invite/accept', { t: secret, name: 'Mallory' }, { csrf: null })).res.status).toBe(303);
    const unknown = c.secret('unknown invitation secret', randomBytes(32).toString('base64url'));
    expect((await new DashClient(dash as unknown as DashHarness).get(`/invite?t=${unknown}`)).res.status).toBe(410);
  },
};

export const quietHoursStep: Step = {
  name: 'quiet hours: set and refused on Profile, an alert held, its digest e-mailed',
  run: async (c) => {
    const links = c.h.services.accountAuth.signInLinks;
    const dash = { app: c.h.app, origin: 'http://alertbridge.test', link: async (id: string) => `http://alertbridge.test/auth/link?t=${(await links.issue(id)).secret}` };
    const client = new DashClient(dash as unknown as DashHarness);
    await client.signInWithLink(c.seed.member.id);
    for (const [name, value] of client.cookies) c.secret(`session cookie ${name} (quiet hours)`, value);
    await client.get('/profile');
    expect((await client.post('/profile/quiet-hours', { start: '25:00', end: '07:00', timeZone: 'UTC' })).res.status).toBe(400);
    // A window around now (UTC), so the next alert below ERROR is held for the member.
    const hour = new Date().getUTCHours();
    const pad = (n: number) => String(n).padStart(2, '0');
    const form = { start: `${pad(hour)}:00`, end: `${pad((hour + 2) % 24)}:00`, timeZone: 'UTC', minLevel: 'error' };
    expect((await client.submit('/profile/quiet-hours', form)).posted.status).toBe(303);
    c.sink.rejectNext(0); // what an earlier step's refusals left unused
    // An earlier step moved the member's address.
    const address = (await c.h.services.accounts.findUser(c.seed.member.id))!.email;
    // The read-API step unsubscribed the member from General by its e-mail link: subscribed again here.
    await c.h.services.notifyPrefs.set(c.seed.member.id, c.seed.general.id, 'all');
    const before = c.sink.to(address).length;
    await expectStatus(c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 'Held for the digest', level: 'warning' })), 201);
    await c.notifier.whenIdle();
    // Due now instead of at the window's end: the digest goes out through the real SMTP server.
    await c.h.exec('UPDATE quiet_digests SET next_attempt_at = 0');
    c.notifier.wake();
    await eventually(() => c.sink.to(address).some((m) => m.subject.startsWith('[Quiet hours]')), 'the quiet-hours digest');
    expect(c.sink.to(address).length).toBe(before + 1);
    await client.submit('/profile/quiet-hours/clear');
  },
};

export const heartbeatPingsStep: Step = {
  name: 'heartbeat pings: every form, unknown UUIDs and keys, bad suffixes, a failure that alerts (issue 28)',
  run: async (c) => {
    const check = await c.h.services.heartbeats.checks.create({ channelId: c.seed.deploys.id, name: 'Log-safe job', period: '1h', grace: '1m' });
    const uuid = c.secret('heartbeat ping UUID', check.pingUuid);
    const key = c.secret('heartbeat ping key', await c.h.services.heartbeats.checks.pingKey(c.seed.ws.id));
    const unknown = c.secret('unknown heartbeat UUID', '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9');
    for (const path of [`/ping/${uuid}`, `/ping/${uuid}/start`, `/ping/${uuid}/log`, `/ping/${key}/${check.slug}`, `/ping/${key}/${check.slug}/0`]) await expectStatus(c.fetch(path, { method: 'POST', body: 'log line' }), 200);
    await expectStatus(c.fetch(`/ping/${uuid}/7`, { method: 'POST', body: 'exit 7' }), 200);
    await expectStatus(c.fetch(`/ping/${unknown}`), 404);
    await expectStatus(c.fetch(`/ping/${key}x/${check.slug}`), 404);
    await expectStatus(c.fetch(`/ping/${uuid}/999`), 400);
    await expectStatus(c.fetch(`/ping/${uuid}?rid=bad`), 400);
    await expectStatus(c.fetch('/api/heartbeats', { token: c.seed.ownerToken }), 200);
  },
};

/** POST /mcp with one JSON-RPC message (issue 30). */
const mcp = (c: Ctx, token: string | undefined, message: unknown) =>
  c.fetch('/mcp', { method: 'POST', token, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: typeof message === 'string' ? message : JSON.stringify(message) });
const toolCall = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });

export const mcpStep: Step = {
  name: 'MCP: initialize and every tool with good tokens, a read-only refusal, a hidden alert, unknown tokens (401), malformed JSON-RPC',
  run: async (c) => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'logs', version: '1' } } };
    await expectStatus(mcp(c, c.seed.ownerToken, initialize), 200);
    const list = await mcp(c, c.seed.ownerToken, toolCall('list_alerts', { channel: 'general' }));
    const page = JSON.parse(((await list.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text) as { alerts: { id: string }[] };
    const id = page.alerts[0]!.id;
    for (const [name, args] of [['list_channels', {}], ['search_alerts', { query: 'ok' }], ['get_alert', { id }], ['mark_read', { id }], ['set_status', { id, action: 'resolve' }]] as const) {
      await expectStatus(mcp(c, c.seed.memberToken, toolCall(name, args)), 200);
    }
    const readOnly = c.secret('read-only API token (MCP)', (await c.h.services.accounts.createToken(c.seed.ws.id, c.seed.member.id, 'mcp ro', { readOnly: true })).token);
    const refused = await mcp(c, readOnly, toolCall('set_status', { id, action: 'reopen' }));
    expect(JSON.stringify(await refused.json())).toContain('read-only-token');
    const secretAlert = ((await (await c.fetch('/api/channels/security/alerts', { token: c.seed.ownerToken })).json()) as { alerts: { id: string }[] }).alerts[0];
    if (secretAlert) await expectStatus(mcp(c, c.seed.memberToken, toolCall('get_alert', { id: secretAlert.id })), 200);
    await expectStatus(mcp(c, c.secret('unknown API token (MCP)', `ab_${randomBytes(24).toString('hex')}`), initialize), 401);
    await expectStatus(mcp(c, c.seed.ownerToken.slice(0, -1), initialize), 401);
    await expectStatus(mcp(c, undefined, initialize), 401);
    await expectStatus(mcp(c, c.seed.ownerToken, '{"jsonrpc":'), 400);
    await expectStatus(mcp(c, c.seed.ownerToken, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', params: { pad: 'x'.repeat(70_000) } })), 413);
    await expectStatus(c.fetch('/mcp', { token: c.seed.ownerToken }), 405);
  },
};
