import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { DashClient, type DashHarness } from '../dashboard/helpers.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import type { Harness, seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import type { SmtpSink } from '../helpers/smtp-sink.js';

/** What the routes' step uses of secrets-in-logs.test.ts's context. */
interface Ctx {
  h: Harness;
  seed: Awaited<ReturnType<typeof seedWorkspace>>;
  sink: SmtpSink;
  secret(label: string, value: string): string;
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
}

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * The no-secret-in-logs scenario's routes step (issue 27): every kind's credential typed into the
 * dashboard, refused forms, tests answered and failing, deliveries, the delivery log and the pause
 * e-mail. Kept beside the test file, which would otherwise pass 400 lines.
 */
export const routesStep: { name: string; run(c: Ctx): Promise<void> } = {
  name: 'dashboard routes: added per kind (two refused), tested (answered and failing), delivered, logged on the alert, paused with its e-mail',
  run: async (c) => {
    const s = c.h.services;
    const receiver = await startFakeReceiver((q) => (q.path.includes('/fail') ? { status: 500, body: 'boom' } : { status: 200, body: '{"ok":true,"result":{"message_id":7},"id":"m1","event_id":"$e"}' }));
    try {
      const links = s.accountAuth.signInLinks;
      const link = async (id: string) => `http://alertbridge.test/auth/link?t=${c.secret('sign-in link secret (routes)', (await links.issue(id)).secret)}`;
      const dash = new DashClient({ app: c.h.app, origin: 'http://alertbridge.test', link } as unknown as DashHarness);
      await dash.signInWithLink(c.seed.owner.id);
      for (const [name, value] of dash.cookies) c.secret(`owner session cookie ${name} (routes)`, value);
      const at = `/channels/${c.seed.general.id}/routes`;
      await dash.get(`${at}/new?kind=slack`);
      const events = { event_opened: 'on', event_resolved: 'on' };
      const forms: Record<string, string>[] = [
        { kind: 'slack', url: `${receiver.url}/services/T0/B0/${c.secret('Slack webhook path', randomBytes(12).toString('hex'))}` },
        { kind: 'telegram', botToken: c.secret('Telegram bot token', `123:${randomBytes(16).toString('hex')}`), chatId: '-100123', apiUrl: `${receiver.url}/fail` },
        { kind: 'matrix', url: receiver.url, accessToken: c.secret('Matrix access token', `syt_${randomBytes(16).toString('hex')}`), room: '!room:example.org' },
        { kind: 'ntfy', url: `${receiver.url}/topic`, token: c.secret('ntfy token', `tk_${randomBytes(16).toString('hex')}`) },
        { kind: 'webhook', url: `${receiver.url}/hook`, secret: c.secret('webhook signing secret', `whsec_${randomBytes(32).toString('base64')}`) },
      ];
      for (const form of forms) expect((await dash.post(at, { ...form, ...events })).res.status).toBe(303);
      // Refused: a URL carrying a password, and a malformed secret.
      expect((await dash.post(at, { kind: 'slack', url: `https://u:${c.secret('password in a refused URL', randomBytes(12).toString('hex'))}@hooks.example.com/x`, ...events })).res.status).toBe(400);
      expect((await dash.post(at, { kind: 'webhook', url: `${receiver.url}/hook`, secret: `whsec_${c.secret('malformed signing secret', randomBytes(20).toString('hex'))}!`, ...events })).res.status).toBe(400);
      const routes = await s.routes.routes.list(c.seed.general.id);
      for (const r of routes) {
        expect((await dash.submit(`${at}/${r.id}/test`)).res.status).toBe(200);
        expect((await dash.get(`${at}/${r.id}`)).res.status).toBe(200);
      }
      const posted = await c.fetch(`/api/webhook/${c.seed.general.webhookToken}`, json({ title: 'forwarded', level: 'error' }));
      const alertId = ((await posted.json()) as { alertId: string }).alertId;
      await eventually(async () => (await s.routes.outbox.deliveriesOfAlert(alertId)).filter((d) => d.kind === 'route' && (d.status === 'sent' || d.attempts > 0)).length === routes.length || undefined, 'each route tried');
      expect((await dash.get(`/alerts/${alertId}/deliveries`)).res.status).toBe(200);
      const telegram = routes.find((r) => r.kind === 'telegram')!;
      await s.routes.outbox.pauseRoute(telegram.id, 'paused after failing for an hour: 127.0.0.1 answered 500', Date.now());
      expect(await s.routes.pauseNotices.notify((await s.routes.routes.require(telegram.id)), 'paused after failing for an hour: 127.0.0.1 answered 500')).toBe(1);
      await c.sink.waitFor(c.sink.messages.length + 1);
      for (const r of routes) expect((await dash.post(`${at}/${r.id}/delete`)).res.status).toBe(303);
    } finally {
      await receiver.close();
    }
  },
};
