import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { png } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import { listen } from '../helpers/harness.js';
import { SseClient } from '../helpers/sse-client.js';
import { notifyHarness, type NotifyHarness } from '../notify/setup.js';
import { fixture } from './fixture.js';

/**
 * Grafana groups and GitHub runs end to end with the e-mail worker and a real
 * SMTP sink: what is stored (read back through the API), what is e-mailed,
 * what the live stream shows and what is billed, step by step.
 */
let t: NotifyHarness | undefined;
let server: { url: string; close(): Promise<void> } | undefined;
let origin: http.Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await t?.close();
  t = undefined;
  if (origin) await new Promise((r) => origin!.close(r));
  origin = undefined;
});

async function start() {
  t = await notifyHarness({ env: { ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' } });
  server = await listen(t.h.app.fetch);
  return t;
}

/** Serves /panel.png (a real PNG); anything else is a 404. */
async function imageOrigin() {
  origin = http.createServer((req, res) => {
    if (req.url === '/panel.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png());
    res.writeHead(404).end('gone');
  });
  await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
}

async function readBack(alertId: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${t!.seed.ownerToken}` } });
  expect(res.status).toBe(200);
  return bodyOf.alert(res);
}

async function markRead(alertId: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${t!.seed.ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ isRead: true }),
  });
  expect(res.status).toBe(200);
}

/** The subjects e-mailed so far, once the worker has nothing left to send. */
async function subjects(atLeast: number) {
  await t!.sink.waitFor(atLeast);
  await t!.notifier.whenIdle();
  return t!.sink.messages.map((m) => m.subject);
}

const usageEvents = async () => (await t!.h.services.usage.report(t!.seed.ws.id)).months[0]?.events ?? 0;
const mediaRows = () => t!.h.count('alert_attachments');

describe('Grafana contact point, notified', () => {
  it('firing with an image → repeat (nothing) → resolved (success, unread, e-mailed) → firing again (reopened, e-mailed, billed once more)', async () => {
    await start();
    const base = await imageOrigin();
    const token = t!.seed.general.webhookToken;
    const post = (body: unknown) =>
      fetch(`${server!.url}/api/webhook/${token}/grafana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    type Grafana = { status: string; title: string; alerts: { status: string; imageURL?: string; startsAt: string; values?: Record<string, number> }[] };
    const firing = structuredClone(fixture('grafana', 'firing')) as Grafana;
    firing.alerts[0]!.imageURL = `${base}/panel.png`;
    const live = await SseClient.open(`${server!.url}/api/stream`, { token: t!.seed.ownerToken });

    const first = await post(firing);
    expect(first.status).toBe(200);
    expect((await bodyOf.groupAnswer(first)).group).toEqual({ status: 'firing', created: true, repeat: false });
    const id = first.headers.get('x-alertbridge-alert-id')!;
    let alert = await readBack(id);
    expect(alert).toMatchObject({ title: '[FIRING:2] (blue)', level: 'ERROR', source: 'Grafana', isRead: false, linkUrl: 'https://play.grafana.org/alerting/1afz29v7z/edit' });
    expect(alert.attachments.map((a) => a.mime)).toEqual(['image/png']);
    expect(await subjects(2)).toEqual(['[ERROR] #general — [FIRING:2] (blue)', '[ERROR] #general — [FIRING:2] (blue)']);
    expect(await usageEvents()).toBe(1);
    await markRead(id);

    // Grafana re-sends the unchanged group with new values and timestamps: nothing happens, and the image fetched for it is not kept.
    const resend = structuredClone(firing);
    resend.alerts[0]!.values = { B: 51.2, C: 1 };
    for (const a of resend.alerts) a.startsAt = '2021-10-12T11:00:00+02:00';
    const repeat = await post(resend);
    expect((await bodyOf.groupAnswer(repeat)).group).toEqual({ status: 'firing', created: false, repeat: true });
    expect(repeat.headers.get('x-alertbridge-alert-id')).toBe(id);
    expect(await subjects(2)).toHaveLength(2);
    expect(await usageEvents()).toBe(1);
    alert = await readBack(id);
    expect(alert.isRead).toBe(true);
    expect(alert.message).not.toContain('51.2');
    expect(await mediaRows()).toBe(1);

    // Resolved: the same alert, green, unread again, e-mailed once more; the new image replaces the old one.
    const resolved = structuredClone(firing);
    resolved.status = 'resolved';
    resolved.title = '[RESOLVED]  (blue)';
    for (const a of resolved.alerts) a.status = 'resolved';
    const done = await post(resolved);
    expect((await bodyOf.groupAnswer(done)).group).toEqual({ status: 'resolved', created: false, repeat: false });
    expect(done.headers.get('x-alertbridge-alert-id')).toBe(id);
    alert = await readBack(id);
    expect(alert).toMatchObject({ title: '[RESOLVED] (blue)', level: 'SUCCESS', emoji: '✅', isRead: false });
    expect(alert.attachments).toHaveLength(1);
    expect(await mediaRows()).toBe(1);
    expect((await subjects(4)).slice(2)).toEqual(['[SUCCESS] #general — [RESOLVED] (blue)', '[SUCCESS] #general — [RESOLVED] (blue)']);
    expect(await usageEvents()).toBe(1);

    // It fires again: reopened (same id), unread, e-mailed, and one new billable episode.
    await markRead(id);
    const again = await post(firing);
    expect((await bodyOf.groupAnswer(again)).group).toEqual({ status: 'firing', created: false, repeat: false });
    expect(again.headers.get('x-alertbridge-alert-id')).toBe(id);
    alert = await readBack(id);
    expect(alert).toMatchObject({ title: '[FIRING:2] (blue)', level: 'ERROR', isRead: false });
    expect((await subjects(6)).slice(4)).toEqual(['[ERROR] #general — [FIRING:2] (blue)', '[ERROR] #general — [FIRING:2] (blue)']);
    expect(await usageEvents()).toBe(2);

    // The stream saw the creation and two updates, not the repeat.
    await live.until((c) => c.ofType('alert.updated').length >= 2, 'the reopening update');
    const levels = (type: string) => live.ofType(type).map((e) => (JSON.parse(e.data) as { level: string }).level);
    expect({ created: levels('alert.created'), updated: levels('alert.updated') }).toEqual({ created: ['ERROR'], updated: ['SUCCESS', 'ERROR'] });
    live.close();
    const page = await bodyOf.page(await fetch(`${server!.url}/api/channels/general/alerts`, { headers: { authorization: `Bearer ${t!.seed.ownerToken}` } }));
    expect(page.alerts.map((a) => a.id)).toEqual([id]);
  });
});

describe('GitHub workflow run, notified', () => {
  it('requested (started e-mail) → jobs (silent, merged into steps) → completed failure (failed e-mail) → a late job (200, ignored, silent); one usage event', async () => {
    await start();
    const token = t!.seed.general.webhookToken;
    let n = 0;
    const deliver = (event: string, body: unknown) =>
      fetch(`${server!.url}/api/webhook/${token}/github`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': `delivery-${++n}` },
        body: JSON.stringify(body),
      });
    const job = (name: string, status: string, conclusion: string | null) => {
      const body = structuredClone(fixture('github', 'workflow_job.completed')) as { action: string; workflow_job: Record<string, unknown> };
      body.action = status === 'completed' ? 'completed' : status;
      Object.assign(body.workflow_job, { name, status, conclusion });
      if (status !== 'completed') body.workflow_job.completed_at = null;
      return body;
    };
    const title = 'Codertocat/Hello-World · Build #562';

    const requested = await deliver('workflow_run', fixture('github', 'workflow_run.requested'));
    expect(requested.status).toBe(200);
    const id = requested.headers.get('x-alertbridge-alert-id')!;
    let alert = await readBack(id);
    expect(alert).toMatchObject({ title, level: 'INFO', source: 'GitHub', workflow: { state: 'running', steps: [] } });
    expect(alert.linkUrl).toMatch(/^https:\/\/github\.com\/Codertocat\/Hello-World\/actions\/runs\/\d+$/);
    // The sender's avatar URL is never shown: the avatar mirror stores our copy (none here: no network).
    expect(alert.actor).toMatchObject({ name: 'Codertocat' });
    expect(alert.actor).not.toHaveProperty('avatarUrl');
    expect(await subjects(2)).toEqual([`[Started] #general — ${title}`, `[Started] #general — ${title}`]);

    for (const body of [job('build', 'in_progress', null), job('build', 'completed', 'success'), job('test', 'completed', 'failure')]) {
      const res = await deliver('workflow_job', body);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-alertbridge-alert-id')).toBe(id);
    }
    expect(await subjects(2)).toHaveLength(2);
    expect((await readBack(id)).workflow).toMatchObject({ state: 'running', steps: [{ name: 'build', state: 'done' }, { name: 'test', state: 'failed' }] });

    const completed = await deliver('workflow_run', fixture('github', 'workflow_run.completed'));
    expect(completed.status).toBe(200);
    expect(completed.headers.get('x-alertbridge-alert-id')).toBe(id);
    alert = await readBack(id);
    expect(alert).toMatchObject({ level: 'ERROR', isRead: false, workflow: { state: 'failed', error: 'failure' } });
    expect(alert.workflow!.steps.map((s) => [s.name, s.state])).toEqual([['build', 'done'], ['test', 'failed']]);
    expect((await subjects(4)).slice(2)).toEqual([`[Failed] #general — ${title}`, `[Failed] #general — ${title}`]);

    const late = await deliver('workflow_job', job('deploy', 'queued', null));
    expect(late.status).toBe(200);
    expect(await bodyOf.githubIgnored(late)).toEqual({ ignored: 'workflow_job', reason: 'the run already completed' });
    expect((await readBack(id)).workflow!.steps).toHaveLength(2);
    expect(await subjects(4)).toHaveLength(4);
    expect(await usageEvents()).toBe(1);
  });
});
