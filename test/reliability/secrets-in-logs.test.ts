import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { githubSignature } from '../../src/domain/formats/github-body.js';
import { createLogger } from '../../src/lib/logger.js';
import { startNotifier } from '../../src/notify/outbox-worker.js';
import { startBackground } from '../../src/runtime.js';
import { startHarness, listen, seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { eventually } from '../helpers/poll.js';
import { png } from '../media/fixtures.js';
import { FAST_RETRY } from '../notify/setup.js';
import { startPushWorker } from '../../src/notify/push/start.js';
import { DashClient, type DashHarness } from '../dashboard/helpers.js';
import { FakePushService } from '../helpers/push-service.js';
import { routesStep } from './secrets-in-logs-routes.js';
import { type Ctx, type Step, accountEmailsStep, cliEnv, dashboardSignInStep, escalationStep, expectStatus, heartbeatPingsStep, invitationsStep, json, mcpStep, quietHoursStep } from './secrets-in-logs-steps.js';

/**
 * No secret in any log line, at any level. The service runs at LOG_LEVEL=trace
 * with the production logger configuration (redaction included) writing into
 * `lines`, through a scenario that uses every secret on its success and error
 * paths. A later feature (dashboard sessions, sign-in links) joins by adding
 * steps to STEPS and its secrets with `ctx.secret(...)`.
 */


const SMTP_USER = 'alertbridge-mailer';

const SMTP_PASSWORD = `pw-${randomBytes(12).toString('hex')}`;


/** The scenario: every way a secret reaches the service. */
const STEPS: Step[] = [
  {
    name: 'webhook: accepted alerts (JSON, multipart, keyed) with good tokens',
    run: async (c) => {
      await expectStatus(c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 'ok', level: 'error' })), 201);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.secret.webhookToken}`, { ...json({ title: 'keyed' }), headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' } }), 201);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.secret.webhookToken}`, { ...json({ title: 'keyed' }), headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' } }), 201);
      const form = new FormData();
      form.set('payload', JSON.stringify({ title: 'with a file' }));
      form.set('file', new Blob([new Uint8Array(png(1))], { type: 'image/png' }), 'a.png');
      await expectStatus(c.fetch(`/api/webhook/${c.seed.deploys.webhookToken}`, { method: 'POST', body: form }), 201);
    },
  },
  {
    name: 'webhook: unknown and truncated tokens (404)',
    run: async (c) => {
      const unknown = c.secret('unknown webhook token', `whk_${randomBytes(24).toString('base64url')}`);
      await expectStatus(c.fetch(`/api/webhook/${unknown}`, json({ title: 'x' })), 404);
      const truncated = c.seed.general.webhookToken.slice(0, -1);
      await expectStatus(c.fetch(`/api/webhook/${truncated}`, json({ title: 'x' })), 404);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.general.webhookToken}/extra`, json({ title: 'x' })), 404);
    },
  },
  {
    name: 'webhook: invalid (400), unsupported type (415), key reused (422), attachment refused (422), too large (413)',
    run: async (c) => {
      const t = c.seed.general.webhookToken;
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: '' })), 400);
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: 'keyed', dedupKey: 'k-1' })), 201);
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: 'keyed', dedupKey: 'k-1', status: 'resolved' })), 201);
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: 'keyed', dedupKey: 'k-1', status: 'resolved' })), 202);
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: 'keyed', dedupKey: 'k-1', status: 'bogus' })), 400);
      await expectStatus(c.fetch(`/api/webhook/${t}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }), 415);
      await expectStatus(c.fetch(`/api/webhook/${t}`, { ...json({ title: 'other body' }), headers: { 'content-type': 'application/json', 'idempotency-key': 'k-reuse' } }), 201);
      await expectStatus(c.fetch(`/api/webhook/${t}`, { ...json({ title: 'changed body' }), headers: { 'content-type': 'application/json', 'idempotency-key': 'k-reuse' } }), 422);
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: 'x', attachments: [{ url: 'http://127.0.0.1:1/x.png' }] })), 422);
      await expectStatus(c.fetch(`/api/webhook/${t}`, json({ title: 'x'.repeat(17 * 1024 * 1024) })), 413);
    },
  },
  {
    name: 'webhook: a request that fails inside the service (500 until the emoji lookup is fixed; logged at error with its path)',
    run: async (c) => {
      const r = await c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 't', emoji: 'constructor' }));
      await r.arrayBuffer();
      expect([201, 400, 500]).toContain(r.status);
    },
  },
  {
    name: 'read API: a valid token on every route',
    run: async (c) => {
      const token = c.seed.ownerToken;
      await expectStatus(c.fetch('/api/channels', { token }), 200);
      const list = await c.fetch('/api/channels/general/alerts', { token });
      const id = ((await list.json()) as { alerts: { id: string }[] }).alerts[0]!.id;
      await expectStatus(c.fetch(`/api/alerts/${id}`, { token }), 200);
      await expectStatus(c.fetch(`/api/alerts/${id}`, { token, method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"isRead":true}' }), 200);
      await expectStatus(c.fetch(`/api/alerts/${id}`, { token, method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"status":"acknowledged"}' }), 200);
      await expectStatus(c.fetch(`/api/alerts/${id}`, { token, method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"snoozedUntil":"2000-01-01T00:00:00Z"}' }), 400);
      await expectStatus(c.fetch(`/api/alerts/${id}/history`, { token }), 200);
      await expectStatus(c.fetch(`/api/alerts/${id}/deliveries`, { token }), 200);
      await expectStatus(c.fetch('/api/channels/general/alerts?status=open,bogus', { token }), 400);
      await expectStatus(c.fetch('/api/channels/general/threads?sort=reactions&tag=ui', { token }), 200);
      await expectStatus(c.fetch('/api/channels/general/threads?cursor=bogus', { token }), 400);
      // An e-mail action link: its token is a secret (it acts as its recipient), so it must never reach the log.
      const link = new URL(c.h.services.alertActionLinks.url(c.seed.member.id, id, 'acknowledge'));
      c.secret('e-mail action link token', link.searchParams.get('t')!);
      await expectStatus(c.fetch(`${link.pathname}${link.search}`, {}), 200);
      // Post/Redirect/Get with no session: the browser key of the result page is a secret too.
      const acted = await c.fetch(`${link.pathname}${link.search}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://alertbridge.test' }, body: '', redirect: 'manual' });
      expect(acted.status).toBe(303);
      const browserKey = c.secret('result page browser key', /ab_flash=([^;]+)/.exec(acted.headers.getSetCookie().join('\n'))![1]!);
      await expectStatus(c.fetch(acted.headers.get('location')!, { headers: { cookie: `ab_flash=${browserKey}` } }), 200);
      const unsubscribe = new URL(c.h.services.unsubscribe.url(c.seed.member.id, c.seed.general.id));
      await expectStatus(c.fetch(`${unsubscribe.pathname}${unsubscribe.search}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '', redirect: 'manual' }), 303);
      await expectStatus(c.fetch(`${unsubscribe.pathname}${unsubscribe.search}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }), 200);
      await expectStatus(c.fetch(`${link.pathname}${link.search}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://alertbridge.test' }, body: '' }), 410);
      await expectStatus(c.fetch('/api/alerts/mark-all-read', { token, method: 'POST' }), 200);
      await expectStatus(c.fetch('/api/alerts/alt_nope', { token }), 404);
      await expectStatus(c.fetch('/api/channels/security/alerts', { token: c.seed.memberToken }), 404);
    },
  },
  {
    name: 'read API: revoked, truncated, malformed and foreign tokens (401)',
    run: async (c) => {
      const revoked = await c.h.services.accounts.createToken(c.seed.ws.id, c.seed.owner.id, 'to revoke');
      c.secret('revoked API token', revoked.token);
      await c.h.services.accounts.revokeToken(revoked.id);
      await expectStatus(c.fetch('/api/channels', { token: revoked.token }), 401);
      await expectStatus(c.fetch('/api/channels', { token: c.seed.ownerToken.slice(0, -1) }), 401);
      await expectStatus(c.fetch('/api/channels', { token: `${c.seed.ownerToken}0` }), 401);
      await expectStatus(c.fetch('/api/channels', { headers: { authorization: `Basic ${Buffer.from(`user:${c.seed.memberToken}`).toString('base64')}` } }), 401);
      await expectStatus(c.fetch('/api/channels', { headers: { authorization: c.seed.memberToken } }), 401);
      const unknown = c.secret('unknown API token', `ab_${randomBytes(24).toString('hex')}`);
      await expectStatus(c.fetch('/api/channels', { token: unknown }), 401);
    },
  },
  {
    name: 'CLI: token create, and the new token used on the API',
    run: async (c) => {
      const res = await runAdmin(['token', 'create', '--workspace', c.seed.ws.id, '--user', c.seed.member.id, '--name', 'cli'], cliEnv(c.h));
      expect(res.code).toBe(0);
      const token = c.secret('CLI-created API token', (JSON.parse(res.stdout) as { token: string }).token);
      await expectStatus(c.fetch('/api/channels', { token }), 200);
    },
  },
  {
    name: 'read-only token (CLI --read-only) refused a status change; silences created, listed and expired by the CLI; a silenced alert',
    run: async (c) => {
      const res = await runAdmin(['token', 'create', '--workspace', c.seed.ws.id, '--user', c.seed.member.id, '--name', 'wallboard', '--read-only'], cliEnv(c.h));
      expect(res.code).toBe(0);
      const token = c.secret('read-only API token', (JSON.parse(res.stdout) as { token: string }).token);
      const list = await c.fetch('/api/channels/general/alerts', { token });
      const id = ((await list.json()) as { alerts: { id: string }[] }).alerts[0]!.id;
      const patch = (body: string) => c.fetch(`/api/alerts/${id}`, { token, method: 'PATCH', headers: { 'content-type': 'application/json' }, body });
      await expectStatus(patch('{"isRead":true,"status":"resolved"}'), 403);
      await expectStatus(patch('{"isRead":false}'), 200);
      const created = await runAdmin(['silence', 'create', '--channel', 'general', '--for', '1h', '--comment', 'quiet please', '--as', 'owner@acme.test'], cliEnv(c.h));
      expect(created.code, created.stderr).toBe(0);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 'silenced during the step' })), 201);
      expect((await runAdmin(['silence', 'list', '--workspace', c.seed.ws.id], cliEnv(c.h))).code).toBe(0);
      expect((await runAdmin(['silence', 'expire', '--id', (JSON.parse(created.stdout) as { id: string }).id], cliEnv(c.h))).code).toBe(0);
    },
  },
  {
    name: 'drop-in formats: the signing secret set by the CLI; GitHub signed, wrongly signed and unsigned; the other four paths',
    run: async (c) => {
      const secret = c.secret('GitHub signing secret', `gh-${randomBytes(16).toString('hex')}`);
      const res = await runAdmin(['channel', 'set-signing-secret', '--channel', 'deploys', '--secret', secret], cliEnv(c.h));
      expect(res.code).toBe(0);
      expect(res.stdout + res.stderr).not.toContain(secret);
      const t = c.seed.deploys.webhookToken;
      const body = JSON.stringify({ action: 'opened', issue: { number: 1, title: 'x', html_url: 'https://github.com/a/b/issues/1' }, repository: { full_name: 'a/b' } });
      const gh = (sig?: string) =>
        c.fetch(`/api/webhook/${t}/github`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': randomBytes(8).toString('hex'), ...(sig ? { 'x-hub-signature-256': sig } : {}) }, body });
      await expectStatus(gh(githubSignature(body, secret)), 200);
      await expectStatus(gh(`sha256=${'0'.repeat(64)}`), 401);
      await expectStatus(gh(), 401);
      await expectStatus(gh(githubSignature(body, secret).slice(0, -2)), 401);
      await expectStatus(c.fetch(`/api/webhook/${t}/slack`, json({ text: 'from slack' })), 200);
      await expectStatus(c.fetch(`/api/webhook/${t}/discord`, json({ content: 'from discord' })), 204);
      await expectStatus(c.fetch(`/api/webhook/${t}/alertmanager`, json({ groupKey: 'g', status: 'firing', alerts: [{ status: 'firing', labels: { alertname: 'A' } }] })), 200);
      await expectStatus(c.fetch(`/api/webhook/${t}/grafana`, json({ groupKey: 'g', status: 'firing', title: 'T', alerts: [{ status: 'firing', labels: { alertname: 'A' } }] })), 200);
      await expectStatus(c.fetch(`/api/webhook/${t}/alertmanager`, json({ nothing: true })), 400);
      },
    },
    {
    name: 'Web Push: subscribe through the dashboard (201, 400, 403), pushes encrypted and signed, a 503 retried, a 410 removing a subscription',
    run: async (c) => {
      const s = c.h.services;
      c.secret('VAPID private key', s.push.vapid.privateKey);
      const links = s.accountAuth.signInLinks;
      const dash = { app: c.h.app, origin: 'http://alertbridge.test', link: async (id: string) => `http://alertbridge.test/auth/link?t=${(await links.issue(id)).secret}` };
      const client = new DashClient(dash as unknown as DashHarness);
      await client.signInWithLink(c.seed.owner.id);
      for (const [name, value] of client.cookies) c.secret(`session cookie ${name}`, value);
      c.secret('CSRF token', client.csrf!);
      const post = async (body: unknown, csrf: string | undefined = client.csrf) =>
        await c.h.app.request('/push/subscriptions', {
          method: 'POST',
          headers: {
            cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
            origin: dash.origin,
            'content-type': 'application/json',
            accept: 'application/json',
            ...(csrf ? { 'x-csrf-token': csrf } : {}),
          },
          body: JSON.stringify(body),
        });
      const subs = ['ok', 'flaky', 'gone'].map((n) => c.pushService.subscription(`${n}-${randomBytes(4).toString('hex')}`));
      for (const sub of subs) {
        c.secret('push subscription auth secret', sub.keys.auth);
        c.secret('push subscription p256dh', sub.keys.p256dh);
        c.secret('push endpoint (the capability URL of one browser)', new URL(sub.endpoint).pathname.slice('/push/'.length));
        await expectStatus(post({ endpoint: sub.endpoint, keys: sub.keys }), 201);
      }
      await expectStatus(post({ endpoint: subs[0]!.endpoint, keys: { ...subs[0]!.keys, auth: 'short' } }), 400);
      await expectStatus(post({ endpoint: subs[0]!.endpoint, keys: subs[0]!.keys }, 'wrong'), 403);
      c.pushService.statusFor.set(new URL(subs[1]!.endpoint).pathname, 503);
      c.pushService.statusFor.set(new URL(subs[2]!.endpoint).pathname, 410);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 'push me', level: 'error' })), 201);
      await c.notifier.whenIdle();
      await eventually(async () => (await s.push.subscriptions.list(c.seed.owner.id)).length === 2, 'the 410 subscription removed');
      await eventually(() => c.pushService.received.filter((r) => r.path === new URL(subs[1]!.endpoint).pathname).length >= 2, 'a retried push');
      c.pushService.statusFor.clear();
      await c.push.whenIdle();
      expect(c.pushService.received.some((r) => r.payload?.title === '🚨 push me')).toBe(true);
    },
  },
  dashboardSignInStep,
  routesStep,
  {
    name: "dashboard: an empty channel's first-alert panel revealed, a test alert sent from it, the density saved, a chat thread read, a Discord id refused",
    run: async (c) => {
      const s = c.h.services;
      const fresh = await s.accounts.createChannel({ workspaceId: c.seed.ws.id, name: 'Fresh start', slug: 'fresh-start' });
      c.secret('fresh channel webhook token', fresh.webhookToken);
      const links = s.accountAuth.signInLinks;
      const link = async (id: string) => `http://alertbridge.test/auth/link?t=${c.secret('sign-in link secret (first alert)', (await links.issue(id)).secret)}`;
      const dash = new DashClient({ app: c.h.app, origin: 'http://alertbridge.test', link } as unknown as DashHarness);
      await dash.signInWithLink(c.seed.owner.id);
      for (const [name, value] of dash.cookies) c.secret(`owner session cookie ${name} (first alert)`, value);
      const panel = await dash.get('/feed/c/fresh-start?reveal=1');
      expect(panel.res.status).toBe(200);
      expect(panel.html).toContain(`/api/webhook/${fresh.webhookToken}/alertmanager`);
      expect((await dash.post('/feed/test-alert', { channel: fresh.id, back: '/feed/c/fresh-start' })).res.status).toBe(303);
      expect((await dash.post('/feed/test-alert', { channel: 'ch_nope' })).res.status).toBe(404);
      expect((await dash.post('/feed/density', { density: 'compact' })).res.status).toBe(303);
      expect((await dash.post('/feed/density', { density: fresh.webhookToken })).res.status).toBe(400);
      // Issue 29: a chat thread's replies (in place and on its page), and the Discord connect form refusing a secret as an id.
      const chat = await s.accounts.createChannel({ workspaceId: c.seed.ws.id, name: 'Chat threads', slug: 'chat-threads' });
      c.secret('chat channel webhook token', chat.webhookToken);
      await s.discordLinks.connect(chat.id, '1700000000000000001');
      const thread = { id: '1700000000000000100', name: 'a thread', tags: [], archived: false };
      const mia = { id: 'u1', name: 'Mia', bot: false, role: 'member' as const };
      const msg = (id: string, text: string) => ({ messageId: id, createdAt: Date.now(), editedAt: null, text, author: mia, replyTo: null, attachments: [], thread });
      await s.chatIngest.store({ channelId: chat.id, discordChannelId: '1700000000000000001' }, [msg(thread.id, 'head'), msg('1700000000000000101', 'reply')]);
      expect((await dash.get(`/feed/c/chat-threads/threads/${thread.id}?fragment=1`)).res.status).toBe(200);
      expect((await dash.get(`/feed/c/chat-threads/threads/${thread.id}`)).res.status).toBe(200);
      expect((await dash.get('/feed/c/chat-threads/threads/1700000000000009999')).res.status).toBe(404);
      expect((await dash.post(`/channels/${fresh.id}/discord`, { discord_channel: '', discord_channel_id: fresh.webhookToken })).res.status).toBe(400);
    },
  },
  escalationStep,
  {
    name: 'SMTP: a login refused (retried), a MAIL FROM refused (retried), then delivered with the password',
    run: async (c) => {
      c.sink.rejectAuthNext(1);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.secret.webhookToken}`, json({ title: 'mail me', level: 'error' })), 201);
      await c.sink.waitFor(1, 10_000);
      c.sink.rejectNext(1, 451);
      await expectStatus(c.fetch(`/api/webhook/${c.seed.secret.webhookToken}`, json({ title: 'mail me again', level: 'error' })), 201);
      await c.sink.waitFor(2, 10_000);
      await c.notifier.whenIdle();
      expect(c.sink.attempts).toBeGreaterThanOrEqual(3);
    },
  },
  accountEmailsStep,
  invitationsStep,
  quietHoursStep,
  heartbeatPingsStep,
  mcpStep,
];

let ctx: Ctx;
const lines: string[] = [];
const secrets = new Map<string, string>();
let stopBackground: (() => Promise<void>) | undefined;
let closeServer: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const sink = await SmtpSink.start({ auth: { user: SMTP_USER, pass: SMTP_PASSWORD } });
  const smtpUrl = `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${sink.port}`;
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  const pushService = await FakePushService.start();
  const h = await startHarness({ env: { LOG_LEVEL: 'trace', PUSH_ALLOW_PRIVATE: '1', ROUTES_ALLOW_PRIVATE: '1', SMTP_URL: smtpUrl, MAIL_FROM: 'Alertbridge <alerts@alertbridge.test>' }, overrides: { logger } });
  const seed = await seedWorkspace(h.services);
  // The runtime's own start-up lines (maintenance, e-mail, Discord off) are part of what is checked.
  const runtime = await startBackground(h.services);
  await runtime.parts.find((p) => p.name === 'notifier')?.stop();
  const notifier = startNotifier(h.services, { retry: FAST_RETRY });
  // The test's push service has a certificate of its own: the worker trusts it (the runtime's stays, stopped, in the scenario's lines).
  await runtime.parts.find((p) => p.name === 'push')?.stop();
  const push = startPushWorker(h.services, { retry: FAST_RETRY, ca: pushService.ca });
  stopBackground = async () => {
    await push.stop();
    await notifier.stop();
    await runtime.stop();
  };
  const server = await listen(h.app.fetch);
  closeServer = async () => {
    await server.close();
    await sink.close();
    await pushService.close();
    await h.close();
  };
  ctx = {
    h,
    url: server.url,
    seed,
    sink,
    notifier,
    push,
    pushService,
    secret: (label, value) => {
      secrets.set(label, value);
      return value;
    },
    fetch: (path, init = {}) => {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      return fetch(`${server.url}${path}`, { ...rest, headers });
    },
  };
  ctx.secret('SMTP password', SMTP_PASSWORD);
  for (const ch of ['general', 'deploys', 'secret'] as const) ctx.secret(`webhook token of ${ch}`, seed[ch].webhookToken);
  ctx.secret('webhook token of the other workspace', seed.otherChannel.webhookToken);
  ctx.secret('owner API token', seed.ownerToken);
  ctx.secret('member API token', seed.memberToken);
  ctx.secret('stranger API token', seed.strangerToken);
});

afterAll(async () => {
  await stopBackground?.();
  await closeServer?.();
});

/**
 * The random part of a secret (a token's public prefix such as `whk_` or `ab_`
 * is not secret) in overlapping 10-character windows: a log line holding any
 * of them leaks more than the 4-character hint the token list shows.
 */
function fragments(value: string): string[] {
  const random = value.replace(/^(whk_|ab_|pw-)/, '');
  const out: string[] = [];
  for (let i = 0; i + 10 <= random.length; i++) out.push(random.slice(i, i + 10));
  return out;
}

describe('no secret in any log line', () => {
  for (const step of STEPS) it(step.name, () => step.run(ctx));

  it('the captured log (trace level) holds none of the secrets, nor any 10-character piece of one', async () => {
    await ctx.notifier.whenIdle();
    await ctx.push.whenIdle();
    // The capture works and saw every path: request lines, the masked webhook path, the e-mail retries.
    expect(lines.length).toBeGreaterThan(30);
    const parsed = lines.map((l) => JSON.parse(l) as { level: number; msg: string; path?: string });
    expect(parsed.some((l) => l.msg === 'request' && l.path === '/api/webhook/****')).toBe(true);
    expect(parsed.some((l) => l.msg === 'request' && l.path === '/ping/****/start')).toBe(true);
    expect(parsed.some((l) => l.msg === 'request' && l.path === '/mcp')).toBe(true);
    expect(parsed.some((l) => l.msg === 'e-mail failed; will retry')).toBe(true);
    expect(parsed.some((l) => l.msg === 'push failed; will retry')).toBe(true);
    expect(parsed.some((l) => l.msg === 'push subscription expired or unsubscribed; removed')).toBe(true);
    expect(parsed.some((l) => l.msg === 'invitation e-mail failed')).toBe(true);
    expect(secrets.size).toBeGreaterThanOrEqual(11);

    const leaks: string[] = [];
    for (const [label, value] of secrets) {
      for (const line of lines) {
        const piece = fragments(value).find((f) => line.includes(f));
        if (piece) leaks.push(`${label}: "${piece}" in ${line.slice(0, 300)}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
