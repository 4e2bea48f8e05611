import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startNotifier } from '../../src/notify/outbox-worker.js';
import { bodyOf } from '../helpers/bodies.js';
import { createEngineHarness, describeEngines, type Harness, type HarnessNode, seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { SseClient } from '../helpers/sse-client.js';
import { png } from '../media/fixtures.js';

/**
 * The service's HTTP behaviour on both engines, through the real app served over loopback: the
 * same requests, the same answers, the same stored rows, on the SQLite file and on PostgreSQL
 * (the services built by `openServices` from DATABASE_URL, as `npm start` builds them).
 */
type Seed = Awaited<ReturnType<typeof seedWorkspace>>;

async function post(n: HarnessNode, webhookToken: string, payload: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return n.call('POST', `/api/webhook/${webhookToken}`, { json: payload, headers });
}

describeEngines('the HTTP API', (engine) => {
  let h: Harness;
  let seed: Seed;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await SmtpSink.start();
    h = await createEngineHarness(engine, { env: { ATTACHMENT_FETCH_ALLOW_PRIVATE: '1', SMTP_URL: sink.url, MAIL_FROM: 'Alertbridge <alerts@alertbridge.test>' } });
    seed = await seedWorkspace(h.services);
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('a webhook 201 is committed: read back through the API and stored once', async () => {
    const res = await post(h, seed.deploys.webhookToken, { title: 'Deploy api', level: 'warning', message: 'slow rollout' });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    const page = await bodyOf.page(await h.call('GET', '/api/channels/deploys/alerts', { token: seed.memberToken }));
    expect(page.alerts.map((a) => [a.id, a.title, a.level, a.message, a.isRead])).toEqual([[alertId, 'Deploy api', 'WARNING', 'slow rollout', false]]);
    expect(await h.query('SELECT id FROM alerts WHERE id = ?', [alertId])).toHaveLength(1);
  });

  it('Idempotency-Key: 409 while the first request runs, then the stored answer replayed byte for byte; one alert', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let hits = 0;
    const slow = http.createServer((_req, res) => {
      hits++;
      void gate.then(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png(7)));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/chart.png`;
      const send = () => post(h, seed.general.webhookToken, { title: 'with chart', attachments: [{ url }] }, { 'idempotency-key': `slow-${engine}` });
      const first = send();
      await eventually(() => hits > 0, 'the first request to be fetching its attachment');
      const concurrent = await send();
      expect(concurrent.status).toBe(409);
      expect((await bodyOf.problem(concurrent)).type).toBe(`${h.config.publicUrl}/problems/idempotency-key-in-use`);
      release();
      const done = await first;
      expect(done.status).toBe(201);
      const text = await done.text();
      const replay = await send();
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotency-replayed')).toBe('true');
      expect(await replay.text()).toBe(text);
      expect(await h.query(`SELECT id FROM alerts WHERE title = 'with chart'`)).toHaveLength(1);
    } finally {
      await new Promise((r) => slow.close(r));
    }
  });

  it('a workflow run is updated in place: one alert, the last state, created:false', async () => {
    const run = (state: string, steps: unknown[]) => post(h, seed.deploys.webhookToken, { title: 'Deploy v2', workflow: { runId: `run-${engine}`, state, steps } });
    const started = await bodyOf.accepted(await run('running', [{ name: 'build', state: 'running' }]));
    const updated = await run('failed', [{ name: 'build', state: 'failed', seconds: 3 }]);
    expect(updated.status).toBe(201);
    const body = (await updated.json()) as { alertId: string; workflow: { state: string; created: boolean } };
    expect(body.alertId).toBe(started.alertId);
    expect(body.workflow).toMatchObject({ state: 'failed', created: false });
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${started.alertId}`, { token: seed.ownerToken }));
    expect(alert.level).toBe('ERROR');
    expect(alert.workflow?.steps).toEqual([{ name: 'build', state: 'failed', seconds: 3 }]);
    expect(await h.query(`SELECT id FROM alerts WHERE workflow_run_id = ?`, [`run-${engine}`])).toHaveLength(1);
  });

  it('a multipart upload is stored, read back with its media URL, and served with Range', async () => {
    const bytes = png(3);
    const form = new FormData();
    form.append('payload', JSON.stringify({ title: 'screenshot' }));
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'shot.png');
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { body: form });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    const url = alert.attachments[0]!.url;
    expect(url.startsWith(`${h.config.mediaPublicUrl}/`)).toBe(true);
    const whole = await fetch(url.replace(h.config.publicUrl, h.base));
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(url.replace(h.config.publicUrl, h.base), { headers: { range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 8))).toBe(true);
  });

  it('read API: channels with _count.alerts and unread counts, PATCH read and unread, mark-all-read', async () => {
    const ch = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: `Reads ${engine}` });
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three']) ids.push((await bodyOf.accepted(await post(h, ch.webhookToken, { title }))).alertId);
    const channel = async () => (await bodyOf.channels(await h.call('GET', '/api/channels', { token: seed.memberToken }))).find((c) => c.id === ch.id)!;
    expect((await channel())._count.alerts).toBe(3);
    const read = await h.call('PATCH', `/api/alerts/${ids[0]}`, { token: seed.memberToken, json: { isRead: true } });
    expect((await bodyOf.alert(read)).isRead).toBe(true);
    const unread = await h.call('PATCH', `/api/alerts/${ids[0]}`, { token: seed.memberToken, json: { isRead: false } });
    expect((await bodyOf.alert(unread)).isRead).toBe(false);
    const all = await bodyOf.markedAllRead(await h.call('POST', '/api/alerts/mark-all-read', { token: seed.memberToken, json: { channelId: ch.slug } }));
    expect(all.channelIds).toEqual([ch.id]);
    const page = await bodyOf.page(await h.call('GET', `/api/channels/${ch.slug}/alerts`, { token: seed.memberToken }));
    expect(page.alerts.map((a) => a.isRead)).toEqual([true, true, true]);
    // Another user's state is their own.
    const owners = await bodyOf.page(await h.call('GET', `/api/channels/${ch.slug}/alerts`, { token: seed.ownerToken }));
    expect(owners.alerts.map((a) => a.isRead)).toEqual([false, false, false]);
  });

  it('a revoked token is refused with 401', async () => {
    const made = await h.services.accounts.createToken(seed.ws.id, seed.member.id, 'short-lived');
    expect((await h.call('GET', '/api/channels', { token: made.token })).status).toBe(200);
    await h.services.accounts.revokeToken(made.id);
    const res = await h.call('GET', '/api/channels', { token: made.token });
    expect(res.status).toBe(401);
  });

  it('SSE: alert.created arrives live, and Last-Event-ID resumes after it', async () => {
    const stream = await SseClient.open(`${h.base}/api/stream?channel=general`, { token: seed.ownerToken });
    expect(stream.status).toBe(200);
    try {
      const { alertId } = await bodyOf.accepted(await post(h, seed.general.webhookToken, { title: `live ${engine}` }));
      await stream.until((c) => c.ofType('alert.created').some((e) => e.data.includes(alertId)), 'alert.created of the posted alert');
      const event = stream.ofType('alert.created').find((e) => e.data.includes(alertId))!;
      const next = await bodyOf.accepted(await post(h, seed.general.webhookToken, { title: `after ${engine}` }));
      const resumed = await SseClient.open(`${h.base}/api/stream?channel=general`, { token: seed.ownerToken, lastEventId: event.id });
      try {
        await resumed.until((c) => c.ofType('alert.created').some((e) => e.data.includes(next.alertId)), 'the alert after the resume point');
        expect(resumed.ofType('alert.created').some((e) => e.data.includes(alertId))).toBe(false);
      } finally {
        resumed.close();
      }
    } finally {
      stream.close();
    }
  });

  it('e-mail: the outbox worker sends the alert to the channel members through SMTP', async () => {
    const notifier = startNotifier(h.services, { retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 80 } });
    try {
      const ch = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: `Mail ${engine}` });
      await post(h, ch.webhookToken, { title: `Database down ${engine}`, level: 'error' });
      const mails = () => sink.messages.filter((m) => m.subject.includes(`Database down ${engine}`));
      await eventually(() => mails().length >= 2, 'an e-mail to each member');
      const to = mails().flatMap((m) => m.rcpt).sort();
      expect(to).toEqual(['member@acme.test', 'owner@acme.test']);
      await notifier.whenIdle();
      const states = await h.query<{ state: string }>(`SELECT d.state FROM notification_deliveries d JOIN channels c ON c.id = d.channel_id WHERE c.slug = ?`, [ch.slug]);
      expect(states.map((s) => s.state)).toEqual(['sent', 'sent']);
    } finally {
      await notifier.stop();
    }
  });

  it('dashboard over HTTP: a sign-in link makes a session, which opens the profile settings page', async () => {
    const issued = await h.services.accountAuth.signInLinks.issue(seed.owner.id);
    const cookies = new Map<string, string>();
    const keep = (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [name, value] = line.split(';')[0]!.split('=') as [string, string];
        cookies.set(name.trim(), value);
      }
    };
    const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const confirm = await h.call('GET', `/auth/link?t=${issued.secret}`, { headers: { accept: 'text/html' } });
    expect(confirm.status).toBe(200);
    keep(confirm);
    const press = async () => {
      const res = await h.call('POST', '/auth/link', {
        body: new URLSearchParams({ t: issued.secret }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(h.config.publicUrl).origin, accept: 'text/html', cookie: cookie() },
      });
      keep(res);
      return res;
    };
    expect((await press()).status).toBe(303);
    expect(cookie()).toContain('ab_session=');
    const profile = await h.call('GET', '/profile', { headers: { cookie: cookie(), accept: 'text/html' } });
    expect(profile.status).toBe(200);
    expect(await profile.text()).toContain('owner@acme.test');
    expect(await h.query('SELECT user_id FROM sessions WHERE user_id = ?', [seed.owner.id])).toHaveLength(1);
    // The link is single-use: its page says so, and pressed again it starts no session.
    expect((await h.call('GET', `/auth/link?t=${issued.secret}`, { headers: { accept: 'text/html' } })).status).toBe(410);
    cookies.clear();
    expect((await press()).status).not.toBe(303);
    expect(await h.query('SELECT user_id FROM sessions WHERE user_id = ?', [seed.owner.id])).toHaveLength(1);
  });

  it('chat ingest (the Discord bridge\'s way in) stores messages once and reads them back as chat alerts', async () => {
    const ch = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: `Chat ${engine}` });
    const link = await h.services.discordLinks.connect(ch.id, '1234567890123456789');
    const message = (id: string, text: string) => ({
      messageId: id,
      createdAt: h.services.clock.now(),
      editedAt: null,
      text,
      author: { id: '42', name: 'Jane', bot: false, role: 'member' as const },
      replyTo: null,
      attachments: [],
    });
    const ref = { channelId: link.channelId, discordChannelId: link.discordChannelId };
    expect((await h.services.chatIngest.store(ref, [message('1000000000000000001', 'hello'), message('1000000000000000002', 'world')])).created).toBe(2);
    expect((await h.services.chatIngest.store(ref, [message('1000000000000000002', 'world')])).created).toBe(0);
    const page = await bodyOf.chatPage(await h.call('GET', `/api/channels/${ch.slug}/alerts`, { token: seed.ownerToken }));
    expect(page.alerts.map((a) => a.message)).toEqual(['world', 'hello']);
  });
});

describeEngines('rate limits', (engine) => {
  let h: Harness;
  let seed: Seed;
  beforeAll(async () => {
    h = await createEngineHarness(engine, { env: { RATE_LIMIT_PER_MINUTE: '2', WEBHOOK_RATE_LIMIT_PER_MINUTE: '2' } });
    seed = await seedWorkspace(h.services);
  });
  afterAll(async () => h?.close());

  it('the webhook answers 429 past its limit per channel, with the RateLimit headers and Retry-After, and stores nothing', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(h, seed.general.webhookToken, { title: `t${i}` })).status);
    expect(statuses).toEqual([201, 201, 429]);
    const res = await post(h, seed.general.webhookToken, { title: 'refused' });
    expect(res.status).toBe(429);
    expect(res.headers.get('ratelimit-limit')).toBe('2');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await bodyOf.problem(res)).type).toBe(`${h.config.publicUrl}/problems/rate-limited`);
    expect(await h.query(`SELECT id FROM alerts WHERE title = 'refused'`)).toHaveLength(0);
  });

  it('the read API answers 429 past its limit per token, with the headers', async () => {
    const statuses: number[] = [];
    let last!: Response;
    for (let i = 0; i < 3; i++) {
      last = await h.call('GET', '/api/channels', { token: seed.memberToken });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last.headers.get('ratelimit-limit')).toBe('2');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describeEngines('media grace period', (engine) => {
  const HOUR = 60 * 60 * 1000;
  const clock = new ManualClock(Date.now());
  let h: Harness;
  let seed: Seed;
  beforeAll(async () => {
    h = await createEngineHarness(engine, { overrides: { clock } });
    seed = await seedWorkspace(h.services);
  });
  afterAll(async () => h?.close());

  it('a replaced attachment is listed as orphaned, kept for the grace period, then deleted by maintenance; one used again is kept', async () => {
    const dir = path.join(h.dir, 'media');
    const files = () => fs.readdirSync(dir).filter((f) => !f.startsWith('.')).sort();
    const run = (runId: string, channel: { webhookToken: string }, file: Buffer) =>
      post(h, channel.webhookToken, { title: 'Deploy', workflow: { runId, state: 'running', steps: [] }, attachments: [{ data: file.toString('base64') }] });
    expect((await run('r1', seed.deploys, png(21))).status).toBe(201);
    expect((await run('r2', seed.deploys, png(22))).status).toBe(201);
    const [firstKey, secondKey] = [files().find((f) => fs.readFileSync(path.join(dir, f)).equals(png(21)))!, files().find((f) => fs.readFileSync(path.join(dir, f)).equals(png(22)))!];
    // Both replaced: r1's file is used by nothing any more; r2's bytes are posted again by another alert.
    expect((await run('r1', seed.deploys, png(23))).status).toBe(201);
    expect((await run('r2', seed.deploys, png(24))).status).toBe(201);
    await eventually(async () => (await h.query('SELECT media_key FROM media_orphans')).length === 2, 'both released keys listed');
    expect((await post(h, seed.general.webhookToken, { title: 'again', attachments: [{ data: png(22).toString('base64') }] })).status).toBe(201);

    clock.advance(24 * HOUR - 1);
    expect((await h.services.maintenance()).orphanedMedia).toBe(0);
    expect(files()).toEqual(expect.arrayContaining([firstKey, secondKey]));
    clock.advance(1);
    expect((await h.services.maintenance()).orphanedMedia).toBe(1);
    expect(files()).not.toContain(firstKey);
    expect(files()).toContain(secondKey);
    expect(await h.query('SELECT media_key FROM media_orphans')).toEqual([]);
  });
});
