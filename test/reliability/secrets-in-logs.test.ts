import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { githubSignature } from '../../src/domain/formats/github-body.js';
import { createLogger } from '../../src/lib/logger.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { startBackground } from '../../src/runtime.js';
import { startHarness, type Harness, listen, seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { eventually } from '../helpers/poll.js';
import { png } from '../media/fixtures.js';
import { FAST_RETRY } from '../notify/setup.js';
import type { PushWorker } from '../../src/notify/push/push-worker.js';
import { startPushWorker } from '../../src/notify/push/start.js';
import { DashClient, type DashHarness } from '../dashboard/helpers.js';
import { FakePushService } from '../helpers/push-service.js';
import { routesStep } from './secrets-in-logs-routes.js';

/**
 * No secret in any log line, at any level. The service runs at LOG_LEVEL=trace
 * with the production logger configuration (redaction included) writing into
 * `lines`, through a scenario that uses every secret on its success and error
 * paths. A later feature (dashboard sessions, sign-in links) joins by adding
 * steps to STEPS and its secrets with `ctx.secret(...)`.
 */

interface Ctx {
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

const SMTP_USER = 'alertbridge-mailer';

/** The admin CLI's environment at trace level: the service's DATA_DIR, and its DATABASE_URL on PostgreSQL. */
const cliEnv = (h: Harness) => ({ DATA_DIR: h.dir, LOG_LEVEL: 'trace', ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) });
const SMTP_PASSWORD = `pw-${randomBytes(12).toString('hex')}`;

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const expectStatus = async (res: Promise<Response>, status: number) => {
  const r = await res;
  await r.arrayBuffer();
  expect(r.status).toBe(status);
};

/** The scenario: every way a secret reaches the service. */
const STEPS: { name: string; run(ctx: Ctx): Promise<void> }[] = [
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
  {
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
  },
  routesStep,
  {
    name: "dashboard: an empty channel's first-alert panel revealed, a test alert sent from it, the density saved",
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
    },
  },
  {
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
  },
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
  {
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
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
