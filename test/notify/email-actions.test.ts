import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { bodyOf } from '../helpers/bodies.js';
import { listen, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM } from './setup.js';

/** E-mail action buttons over real HTTP and SMTP: a confirmation page on GET, the act on POST, once, 24 h, for that recipient only. */
let t: { h: Harness; sink: SmtpSink; notifier: Notifier; server: { url: string; close(): Promise<void> } } | undefined;
afterEach(async () => {
  await t?.notifier.stop();
  await t?.server.close();
  await t?.sink.close();
  await t?.h.close();
  t = undefined;
});

async function setUp() {
  const clock = new ManualClock(Date.now());
  const sink = await SmtpSink.start();
  const h = await startHarness({ env: { SMTP_URL: sink.url, MAIL_FROM }, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const notifier = startNotifier(h.services, { retry: FAST_RETRY });
  const server = await listen(h.app.fetch);
  t = { h, sink, notifier, server };
  const post = async (title: string, token = seed.general.webhookToken) => {
    const res = await fetch(`${server.url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title, level: 'error' }) });
    return (await bodyOf.accepted(res)).alertId;
  };
  /** The button's link in the text part of the e-mail `to` got about `title`, on this server. */
  const linkIn = async (to: string, title: string, button: 'Acknowledge' | 'Resolve') => {
    await sink.waitFor(1);
    await notifier.whenIdle();
    const mail = sink.messages.find((m) => m.rcpt.includes(to) && (m.subject ?? '').includes(title));
    if (!mail) throw new Error(`no e-mail to ${to} about ${title}`);
    const url = new URL(new RegExp(`^${button}: (\\S+)$`, 'm').exec(mail.text)![1]!);
    return `${server.url}${url.pathname}${url.search}`;
  };
  const status = async (id: string) => (await bodyOf.alert(await fetch(`${server.url}/api/alerts/${id}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } }))).status;
  return { clock, seed, h, sink, post, linkIn, status, notifier };
}

describe('e-mail action buttons', () => {
  it('GET names who acts and changes nothing; POST acknowledges as the recipient, via email, once', async () => {
    const { seed, h, post, linkIn, status } = await setUp();
    const id = await post('Checkout errors');
    const link = await linkIn('member@acme.test', 'Checkout errors', 'Acknowledge');

    const page = await fetch(link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Max Member');
    expect(html).toContain('member@acme.test');
    expect(html).toContain('Checkout errors');
    expect(await status(id)).toBe('open');

    // Post/Redirect/Get with no session: the result is shown once, to this browser (its cookie), never by the URL alone.
    const done = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(link).origin }, body: '', redirect: 'manual' });
    expect(done.status).toBe(303);
    const result = new URL(done.headers.get('location')!, link).toString();
    expect(result).toMatch(/\/alert-action\/done\?flash=/);
    const cookie = done.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
    const shown = await fetch(result, { headers: { cookie } });
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('Acknowledged “Checkout errors”');
    expect(await (await fetch(result)).text()).not.toContain('Checkout errors');
    const reload = await fetch(result, { headers: { cookie: shown.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ') } });
    expect(await reload.text()).not.toContain('Checkout errors');
    expect(await status(id)).toBe('acknowledged');
    const rows = await h.query<{ via: string; actor_id: string }>('SELECT via, actor_id FROM alert_history WHERE alert_id = ?', [id]);
    expect(rows).toEqual([{ via: 'email', actor_id: seed.member.id }]);

    const again = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(link).origin }, body: '' });
    expect(again.status).toBe(410);
    expect(await h.count('alert_history')).toBe(1);
  });

  it('refuses a changed link, an expired one, and one whose recipient can no longer see the alert', async () => {
    const { clock, seed, h, post, linkIn, status } = await setUp();
    await h.services.accounts.addChannelMember(seed.secret.id, seed.member.id);
    const secretId = await post('Key leaked', seed.secret.webhookToken);
    const memberLink = await linkIn('member@acme.test', 'Key leaked', 'Resolve');
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(memberLink).origin }, body: '' };

    const tampered = memberLink.replace(/t=([A-Za-z0-9_-])/, (_m, ch: string) => `t=${ch === 'A' ? 'B' : 'A'}`);
    expect((await fetch(tampered, form)).status).toBe(410);

    await h.services.accounts.removeChannelMember(seed.secret.id, seed.member.id);
    expect((await fetch(memberLink)).status).toBe(404);
    expect((await fetch(memberLink, form)).status).toBe(404);
    expect(await status(secretId)).toBe('open');

    const ownerLink = await linkIn('owner@acme.test', 'Key leaked', 'Resolve');
    clock.advance(24 * 3600 * 1000 + 1);
    expect((await fetch(ownerLink, form)).status).toBe(410);
    expect(await status(secretId)).toBe('open');
    expect(await h.count('alert_history')).toBe(0);
  });
});
