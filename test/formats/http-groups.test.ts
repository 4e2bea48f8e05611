import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { png } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import { startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import { startHarness, type Harness, listen, seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { SseClient } from '../helpers/sse-client.js';
import { FAST_RETRY, MAIL_FROM } from '../notify/setup.js';
import { fixture } from './fixture.js';

/** Alertmanager's and Grafana's paths over real HTTP: one alert per group key, updated in place. */
let t: { h: Harness; seed: Awaited<ReturnType<typeof seedWorkspace>>; sink: SmtpSink; notifier: Notifier; close(): Promise<void> } | undefined;
let h: Harness | undefined;

/** The service on the file's engine with a real SMTP sink and the e-mail worker started as runtime.ts starts it. */
async function notified(): Promise<NonNullable<typeof t>> {
  const sink = await SmtpSink.start();
  const hh = await startHarness({ env: { SMTP_URL: sink.url, MAIL_FROM } });
  const seed = await seedWorkspace(hh.services);
  const notifier = startNotifier(hh.services, { retry: FAST_RETRY });
  return {
    h: hh,
    seed,
    sink,
    notifier,
    close: async () => {
      await notifier.stop();
      await sink.close();
      await hh.close();
    },
  };
}
let server: { url: string; close(): Promise<void> } | undefined;
let origin: http.Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await t?.close();
  t = undefined;
  await h?.close();
  h = undefined;
  await new Promise<void>((r) => (origin ? origin.close(() => r()) : r()));
  origin = undefined;
});

function post(format: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server!.url}/api/webhook/${token}/${format}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function readBack(alertId: string, token: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return bodyOf.alert(res);
}

async function unreadIn(slug: string, token: string) {
  const res = await fetch(`${server!.url}/api/channels`, { headers: { authorization: `Bearer ${token}` } });
  const channels = await bodyOf.channels(res);
  return channels.find((c) => c.slug === slug)!._count.alerts;
}

async function markRead(alertId: string, token: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ isRead: true }),
  });
  expect(res.status).toBe(200);
}

describe('POST /api/webhook/{token}/alertmanager', () => {
  it('firing → repeat → resolved → firing again: one alert, e-mails only when it starts firing and when it resolves, one usage event per episode', async () => {
    t = await notified();
    server = await listen(t.h.app.fetch);
    const { seed, sink } = t;
    const token = seed.general.webhookToken;
    const firing = fixture('alertmanager', 'firing');
    const resolved = fixture('alertmanager', 'resolved');
    const mails = async (n: number) => {
      await sink.waitFor(n);
      await t!.notifier.whenIdle();
      return sink.messages.length;
    };

    // The live stream, as the dashboard and API clients see it: a repeat shows nothing.
    const live = await SseClient.open(`${server.url}/api/stream`, { token: seed.ownerToken });
    const liveLevels = (type: string) => live.ofType(type).map((e) => (JSON.parse(e.data) as { level: string }).level);

    const first = await post('alertmanager', token, firing);
    expect(first.status).toBe(200);
    const answer = await bodyOf.groupAnswer(first);
    expect(answer).toMatchObject({ success: true, group: { status: 'firing', created: true, repeat: false } });
    const alertId = first.headers.get('x-alertbridge-alert-id')!;
    expect(answer.alertId).toBe(alertId);
    let alert = await readBack(alertId, seed.ownerToken);
    expect(alert).toMatchObject({ level: 'WARNING', isRead: false, linkUrl: 'http://prometheus.example.com/graph?g0.expr=latency+%3E+0.5', workflow: null });
    expect(alert.title).toBe('HighLatency · 2 alerts');
    expect(alert.message).toContain('• High request latency on web-1');
    expect(alert.message).toContain('• p99 latency is above 500ms on web-2');
    expect(alert.fields).toEqual([
      { label: 'alertname', value: 'HighLatency', inline: true },
      { label: 'job', value: 'api', inline: true },
      { label: 'severity', value: 'warning', inline: true },
    ]);
    expect(await mails(2)).toBe(2);
    expect(sink.messages.map((m) => m.rcpt).flat().sort()).toEqual(['member@acme.test', 'owner@acme.test']);
    await markRead(alertId, seed.ownerToken);

    // Alertmanager's repeat_interval resend: the same alerts with fresh timestamps. Nothing changes, nobody is told.
    const resend = structuredClone(firing) as { alerts: { startsAt: string }[] };
    for (const a of resend.alerts) a.startsAt = '2024-01-01T16:00:00.000Z';
    const repeat = await post('alertmanager', token, resend);
    expect(repeat.status).toBe(200);
    expect((await bodyOf.groupAnswer(repeat)).group).toEqual({ status: 'firing', created: false, repeat: true });
    expect(repeat.headers.get('x-alertbridge-alert-id')).toBe(alertId);
    await t.notifier.whenIdle();
    expect(sink.messages).toHaveLength(2);
    expect((await readBack(alertId, seed.ownerToken)).isRead).toBe(true);

    // Resolved: success, unread again, one e-mail each.
    const res = await post('alertmanager', token, resolved);
    expect(res.status).toBe(200);
    expect((await bodyOf.groupAnswer(res)).group).toEqual({ status: 'resolved', created: false, repeat: false });
    alert = await readBack(alertId, seed.ownerToken);
    expect(alert).toMatchObject({ level: 'SUCCESS', isRead: false });
    expect(await unreadIn('general', seed.ownerToken)).toBe(1);
    expect(await mails(4)).toBe(4);
    // Events arrive in order: had the repeat emitted one, it would be here before the resolved one.
    await live.until((c) => c.ofType('alert.updated').length >= 1, 'the resolved update');
    expect({ created: liveLevels('alert.created'), updated: liveLevels('alert.updated') }).toEqual({ created: ['WARNING'], updated: ['SUCCESS'] });
    expect(sink.messages.slice(2).every((m) => /HighLatency/.test(m.subject ?? ''))).toBe(true);

    // A resend of the resolved group is a repeat too.
    await markRead(alertId, seed.ownerToken);
    expect((await bodyOf.groupAnswer(await post('alertmanager', token, resolved))).group.repeat).toBe(true);

    // The group fires again later: the same alert reopens, unread, notified, billed once more.
    const again = await post('alertmanager', token, firing);
    expect((await bodyOf.groupAnswer(again)).group).toEqual({ status: 'firing', created: false, repeat: false });
    expect(again.headers.get('x-alertbridge-alert-id')).toBe(alertId);
    alert = await readBack(alertId, seed.ownerToken);
    expect(alert).toMatchObject({ level: 'WARNING', isRead: false });
    expect(await mails(6)).toBe(6);
    await live.until((c) => c.ofType('alert.updated').length >= 2, 'the reopening update');
    expect(liveLevels('alert.updated')).toEqual(['SUCCESS', 'WARNING']);
    live.close();

    const page = await bodyOf.page(await fetch(`${server.url}/api/channels/general/alerts`, { headers: { authorization: `Bearer ${seed.ownerToken}` } }));
    expect(page.alerts.map((a) => a.id)).toEqual([alertId]);
    expect((await t.h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(2);
  });

  it('severity picks the level while firing; a missing severity is an error; groups of two channels never meet', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    server = await listen(h.app.fetch);
    const body = structuredClone(fixture('alertmanager', 'firing')) as { commonLabels: { severity?: string } };
    delete body.commonLabels.severity;
    const a = await post('alertmanager', seed.general.webhookToken, body);
    expect((await readBack(a.headers.get('x-alertbridge-alert-id')!, seed.ownerToken)).level).toBe('ERROR');
    body.commonLabels.severity = 'info';
    const b = await post('alertmanager', seed.deploys.webhookToken, body);
    expect(b.headers.get('x-alertbridge-alert-id')).not.toBe(a.headers.get('x-alertbridge-alert-id'));
    expect((await readBack(b.headers.get('x-alertbridge-alert-id')!, seed.ownerToken)).level).toBe('INFO');
  });

  it('a deleted group alert is not reopened: the next notification of the group starts a new alert', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    server = await listen(h.app.fetch);
    const first = await post('alertmanager', seed.general.webhookToken, fixture('alertmanager', 'firing'));
    const id = first.headers.get('x-alertbridge-alert-id')!;
    const del = await runAdmin(['alert', 'delete', '--id', id], { DATA_DIR: h.dir, LOG_LEVEL: 'silent', ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) });
    expect(del.code).toBe(0);
    const next = await post('alertmanager', seed.general.webhookToken, fixture('alertmanager', 'resolved'));
    expect((await bodyOf.groupAnswer(next)).group).toEqual({ status: 'resolved', created: true, repeat: false });
    expect(next.headers.get('x-alertbridge-alert-id')).not.toBe(id);
    expect((await readBack(next.headers.get('x-alertbridge-alert-id')!, seed.ownerToken)).level).toBe('SUCCESS');
  });

  it('an Idempotency-Key replays the first answer; an unreadable body is a 400 problem that stores nothing', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    server = await listen(h.app.fetch);
    const token = seed.general.webhookToken;
    const first = await post('alertmanager', token, fixture('alertmanager', 'firing'), { 'idempotency-key': 'am-1' });
    const replay = await post('alertmanager', token, fixture('alertmanager', 'firing'), { 'idempotency-key': 'am-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await replay.text()).toBe(await first.text());
    for (const bad of ['{', '[]', '{"alerts": []}']) {
      const res = await fetch(`${server.url}/api/webhook/${token}/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bad });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await h.count('alerts')).toBe(1);
  });
});

describe('POST /api/webhook/{token}/grafana', () => {
  it("takes Grafana's title, fetches imageURL as an attachment and names an image it cannot fetch", async () => {
    origin = http.createServer((req, res) => {
      if (req.url === '/render/panel.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png());
      res.writeHead(404).end('nope');
    });
    await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    h = await startHarness({ env: { ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
    const seed = await seedWorkspace(h.services);
    server = await listen(h.app.fetch);
    const body = structuredClone(fixture('grafana', 'firing')) as { status: string; title: string; alerts: { status: string; imageURL?: string }[] };
    body.alerts[0]!.imageURL = `${base}/render/panel.png`;
    body.alerts[1]!.imageURL = `${base}/render/missing.png`;
    const res = await post('grafana', seed.general.webhookToken, body);
    expect(res.status).toBe(200);
    const alert = await readBack(res.headers.get('x-alertbridge-alert-id')!, seed.ownerToken);
    expect(alert.title).toBe('[FIRING:2] (blue)'); // runs of spaces collapsed, as every format's title
    expect(alert.source).toBe('Grafana');
    expect(alert.level).toBe('ERROR');
    expect(alert.attachments.map((a) => [a.type, a.mime])).toEqual([['image', 'image/png']]);
    expect(alert.message).toMatch(/1 image could not be fetched and was skipped/);
    expect(alert.message).toContain('Silence: https://play.grafana.org/alerting/silence/new');

    // Resolved by Grafana: the same alert, success.
    body.status = 'resolved';
    for (const a of body.alerts) a.status = 'resolved';
    body.title = '[RESOLVED]  (blue)';
    const done = await post('grafana', seed.general.webhookToken, body);
    expect(done.headers.get('x-alertbridge-alert-id')).toBe(res.headers.get('x-alertbridge-alert-id'));
    expect(await readBack(done.headers.get('x-alertbridge-alert-id')!, seed.ownerToken)).toMatchObject({ title: '[RESOLVED] (blue)', level: 'SUCCESS' });
  });
});
