import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { seedWorkspace } from '../helpers/harness.js';
import { cliEnv, DashClient, startDashboard, type DashHarness } from './helpers.js';

/** The feed's server side over real HTTP: the session stream, the per-user read event, deleting alerts. */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  h = await startDashboard({ overrides: { live: { pollIntervalMs: 200 } } });
  seed = await seedWorkspace(h.services);
});
afterAll(async () => {
  await h?.close();
});

async function post(webhookToken: string, payload: unknown): Promise<string> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { alertId: string }).alertId;
}

/** An SSE connection whose events are collected as they arrive. */
function openStream(path: string, headers: Record<string, string>) {
  const ctrl = new AbortController();
  const events: { event: string; id?: string; data: string }[] = [];
  const ready = fetch(`${h.config.publicUrl}${path}`, { headers, signal: ctrl.signal }).then(async (res) => {
    void (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const ev: { event: string; id?: string; data: string } = { event: 'message', data: '' };
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) ev.event = line.slice(7);
              else if (line.startsWith('id: ')) ev.id = line.slice(4);
              else if (line.startsWith('data: ')) ev.data += line.slice(6);
            }
            if (ev.data) events.push(ev);
          }
        }
      } catch {
        /* aborted */
      }
    })();
    return res;
  });
  return { ready, events, close: () => ctrl.abort() };
}

describe('feed server side', () => {
  it('refuses the dashboard stream without a session', async () => {
    const res = await fetch(`${h.config.publicUrl}/feed/stream`, { redirect: 'manual', headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in?next=%2Ffeed%2Fstream');
    expect(res.headers.get('content-type') ?? '').not.toContain('text/event-stream');
    // A token is not a session: the dashboard stream is for signed-in browsers only.
    const withToken = await fetch(`${h.config.publicUrl}/feed/stream`, { redirect: 'manual', headers: { authorization: `Bearer ${seed.ownerToken}` } });
    expect(withToken.status).toBe(303);
  });

  it('sends read.updated on the API stream and the dashboard stream when the user marks read through the API', async () => {
    const alertId = await post(seed.general.webhookToken, { title: 'Disk 91%', level: 'WARNING' });
    await post(seed.general.webhookToken, { title: 'Disk 95%', level: 'WARNING' });
    const api = openStream('/api/stream', { authorization: `Bearer ${seed.ownerToken}` });
    // Another user's stream must not hear about the owner's reads.
    const other = openStream('/api/stream', { authorization: `Bearer ${seed.memberToken}` });
    const browser = new DashClient(h);
    await browser.signInWithLink(seed.owner.id);
    const dash = openStream('/feed/stream', { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') });
    expect((await api.ready).status).toBe(200);
    expect((await other.ready).status).toBe(200);
    const dashRes = await dash.ready;
    expect(dashRes.status).toBe(200);
    expect(dashRes.headers.get('content-type')).toContain('text/event-stream');
    await expect.poll(() => h.services.live.size).toBe(3);

    const res = await fetch(`${h.config.publicUrl}/api/alerts/${alertId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${seed.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ isRead: true }),
    });
    expect(res.status).toBe(200);
    const expected = { event: 'read.updated', data: JSON.stringify({ channelId: seed.general.id, unread: 1 }) };
    await expect.poll(() => api.events, { timeout: 5_000 }).toContainEqual(expected);
    await expect.poll(() => dash.events, { timeout: 5_000 }).toContainEqual(expected);

    // A new alert reaches the dashboard as a rendered card with the channel's unread count.
    await post(seed.general.webhookToken, { title: 'Disk 99%', level: 'ERROR' });
    await expect.poll(() => dash.events.find((e) => e.event === 'card')?.data ?? '', { timeout: 5_000 }).toContain('Disk 99%');
    const card = JSON.parse(dash.events.find((e) => e.event === 'card')!.data) as { type: string; unread: number; html: string; level: string };
    // The owner's level for the channel is the default "all": a browser notification is due.
    expect(card).toMatchObject({ type: 'alert.created', unread: 2, level: 'ERROR', notify: true, summary: 'Disk 99%' });
    expect(card.html).toContain('<li class="feed-entry" id="alert-');
    expect(dash.events.find((e) => e.event === 'card')!.id).toMatch(/^\d+$/);
    expect(other.events.filter((e) => e.event === 'read.updated')).toEqual([]);
    // "Important only": an INFO alert still appears, without a notification.
    await h.services.notifyPrefs.set(seed.owner.id, seed.general.id, 'important');
    await post(seed.general.webhookToken, { title: 'Disk cleaned', level: 'INFO' });
    await expect.poll(() => dash.events.some((e) => e.event === 'card' && e.data.includes('Disk cleaned')), { timeout: 5_000 }).toBe(true);
    expect(JSON.parse(dash.events.find((e) => e.event === 'card' && e.data.includes('Disk cleaned'))!.data)).toMatchObject({ notify: false });
    for (const s of [api, other, dash]) s.close();
  });

  it('lets owners and admins delete an alert (members get a 403), from the dashboard and the CLI', async () => {
    const first = await post(seed.deploys.webhookToken, { title: 'Leaked: sk_live_123', level: 'ERROR' });
    const second = await post(seed.deploys.webhookToken, { title: 'Leaked again', level: 'ERROR' });
    const stream = openStream('/api/stream', { authorization: `Bearer ${seed.memberToken}` });
    expect((await stream.ready).status).toBe(200);

    const member = new DashClient(h);
    await member.signInWithLink(seed.member.id);
    const feed = await member.get('/feed/c/deploys');
    expect(feed.html).toContain('Leaked: sk_live_123');
    expect(feed.html).not.toContain(`/feed/delete/${first}`);
    expect((await member.get(`/feed/delete/${first}`)).res.status).toBe(403);
    expect((await member.post(`/feed/delete/${first}`)).res.status).toBe(403);

    const owner = new DashClient(h);
    await owner.signInWithLink(seed.owner.id);
    expect((await owner.get('/feed/c/deploys')).html).toContain(`href="/feed/delete/${first}"`);
    const confirm = await owner.get(`/feed/delete/${first}?back=/feed/c/deploys`);
    expect(confirm.res.status).toBe(200);
    expect(confirm.html).toContain('Delete this alert?');
    const done = await owner.post(`/feed/delete/${first}`, { back: '/feed/c/deploys' });
    expect(done.res.status).toBe(303);
    expect(done.res.headers.get('location')).toMatch(/^\/feed\/c\/deploys\?flash=[A-Za-z0-9_-]{22}$/);
    const gone = await fetch(`${h.config.publicUrl}/api/alerts/${first}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
    expect(gone.status).toBe(404);
    await expect.poll(() => stream.events, { timeout: 5_000 }).toContainEqual(
      expect.objectContaining({ event: 'alert.deleted', data: JSON.stringify({ id: first, channelId: seed.deploys.id }) }),
    );
    // Another workspace's owner cannot delete what they cannot see.
    const stranger = new DashClient(h);
    await stranger.signInWithLink(seed.stranger.id);
    expect((await stranger.post(`/feed/delete/${second}`)).res.status).toBe(404);

    const cli = await runAdmin(['alert', 'delete', '--id', second], cliEnv(h));
    expect(cli.stderr).toBe('');
    expect(JSON.parse(cli.stdout)).toEqual({ id: second, channelId: seed.deploys.id, deleted: true, filesReleased: 0 });
    expect((await fetch(`${h.config.publicUrl}/api/alerts/${second}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } })).status).toBe(404);
    // Written by another process: the server's poll still tells open streams.
    await expect.poll(() => stream.events.map((e) => e.event === 'alert.deleted' && e.data.includes(second)), { timeout: 5_000 }).toContain(true);
    const again = await runAdmin(['alert', 'delete', '--id', second], cliEnv(h));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/alert/);
    stream.close();
  });
});
