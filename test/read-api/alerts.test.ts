import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, listen, postAlert, rawRequest, seedWorkspace } from '../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());



async function seedAlerts(hh: Harness, webhookToken: string, n: number, level = 'info') {
  // Sent concurrently: they land in the same group-commit batch and often the same millisecond.
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => postAlert(hh, webhookToken, { title: `alert ${i}`, level })),
  );
  return results.map((r) => r.body.alertId as string);
}

describe('channels', () => {
  it('lists public channels and only the private channels the user belongs to, nothing of other workspaces', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const owner = await bodyOf.channels(await h.call('GET', '/api/channels', { token: seed.ownerToken }));
    expect(owner.map((c) => c.slug)).toEqual(['general', 'deploys', 'security']);
    expect(owner[0]).toEqual({
      id: seed.general.id,
      name: 'General',
      slug: 'general',
      icon: '📢',
      isPrivate: false,
      webhookToken: seed.general.webhookToken,
      chat: null,
      _count: { alerts: 0 },
    });
    const member = await bodyOf.channels(await h.call('GET', '/api/channels', { token: seed.memberToken }));
    expect(member.map((c) => c.slug)).toEqual(['general', 'deploys']);
    const stranger = await bodyOf.channels(await h.call('GET', '/api/channels', { token: seed.strangerToken }));
    expect(stranger.map((c) => c.id)).toEqual([seed.otherChannel.id]);
  });

  it('answers 404 for a private channel byte-for-byte like a channel that does not exist', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const { body } = await postAlert(h, seed.secret.webhookToken, { title: 'secret' });
    const read = async (path: string) => {
      // The same X-Request-Id each time: it is echoed in the problem body as `requestId`.
      const res = await h.call('GET', path, { token: seed.memberToken, headers: { 'x-request-id': 'same' } });
      return { status: res.status, type: res.headers.get('content-type'), text: (await res.text()).replace(path, '<path>') };
    };
    const privateById = await read(`/api/channels/${seed.secret.id}/alerts`);
    const privateBySlug = await read('/api/channels/security/alerts');
    const missing = await read('/api/channels/ch_01M81KVKGV286JF2MCBJ8HQRZ5/alerts');
    const missingSlug = await read('/api/channels/nope/alerts');
    expect(privateById.status).toBe(404);
    expect(privateById).toEqual(missing);
    expect(privateBySlug).toEqual(missingSlug);
    const otherWs = await read(`/api/channels/${seed.otherChannel.id}/alerts`);
    expect(otherWs).toEqual(missing);
    // The alert itself is just as invisible.
    const alertRes = await read(`/api/alerts/${body.alertId}`);
    const noAlert = await read('/api/alerts/alt_01M81KVKGV286JF2MCBJ8HQRZ5');
    expect(alertRes.status).toBe(404);
    expect(alertRes).toEqual(noAlert);
    const patch = await h.call('PATCH', `/api/alerts/${body.alertId}`, { token: seed.memberToken, json: { isRead: true } });
    expect(patch.status).toBe(404);
    const mark = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.memberToken, json: { channelId: 'security' } });
    expect(mark.status).toBe(404);
    // The owner, an explicit member, sees it.
    expect((await h.call('GET', '/api/channels/security/alerts', { token: seed.ownerToken })).status).toBe(200);
  });
});

describe('alert lists', () => {
  it('walks a channel newest first, exactly once, across pages', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const ids = await seedAlerts(h, seed.general.webhookToken, 23);
    expect(new Set(ids).size).toBe(23);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h.call('GET', `/api/channels/general/alerts?limit=5${cursor ? `&cursor=${cursor}` : ''}`, { token: seed.ownerToken });
      expect(res.status).toBe(200);
      const page = await bodyOf.page(res);
      seen.push(...page.alerts.map((a) => a.id));
      expect(page.hasMore).toBe(page.nextCursor !== null);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual([...ids].sort().reverse());
    // Ids sort in creation order: the first posted is the oldest.
    expect(seen[seen.length - 1]).toBe(ids.sort()[0]);
  });

  it('returns the standard alert shape with ISO timestamps and upper-case level', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const { body } = await postAlert(h, seed.general.webhookToken, {
      title: 'Disk almost full',
      level: 'warning',
      emoji: 'warning',
      message: 'db-1 at 91%',
      fields: [{ label: 'host', value: 'db-1', inline: true }, { name: 'usage', value: 91 }],
      linkUrl: 'https://grafana.example.com/d/1',
    });
    const page = await bodyOf.page(await h.call('GET', '/api/channels/general/alerts', { token: seed.ownerToken }));
    expect(page.alerts).toHaveLength(1);
    const a = page.alerts[0]!;
    expect(a).toMatchObject({
      id: body.alertId,
      channelId: seed.general.id,
      title: 'Disk almost full',
      level: 'WARNING',
      emoji: '⚠️',
      message: 'db-1 at 91%',
      fields: [
        { label: 'host', value: 'db-1', inline: true },
        { label: 'usage', value: '91', inline: false },
      ],
      linkUrl: 'https://grafana.example.com/d/1',
      linkText: 'View',
      isRead: false,
    });
    expect(a.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(page.nextCursor).toBeNull();
    expect(page.hasMore).toBe(false);
  });

  it('polls with after: only strictly newer alerts', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const first = (await seedAlerts(h, seed.general.webhookToken, 3)).sort();
    const newest = first[2]!;
    const none = await bodyOf.page(await h.call('GET', `/api/channels/general/alerts?after=${newest}`, { token: seed.ownerToken }));
    expect(none.alerts).toEqual([]);
    const later = (await seedAlerts(h, seed.general.webhookToken, 4)).sort();
    const got = await bodyOf.page(await h.call('GET', `/api/channels/general/alerts?after=${newest}`, { token: seed.ownerToken }));
    expect(got.alerts.map((a) => a.id)).toEqual([...later].reverse());
    // after + cursor pages through a large gap without skipping.
    const p1 = await bodyOf.page(await h.call('GET', `/api/channels/general/alerts?after=${first[0]}&limit=3`, { token: seed.ownerToken }));
    const p2 = await bodyOf.page(await h.call('GET', `/api/channels/general/alerts?after=${first[0]}&limit=3&cursor=${p1.nextCursor}`, { token: seed.ownerToken }));
    expect([...p1.alerts, ...p2.alerts].map((a) => a.id)).toEqual([...first.slice(1), ...later].sort().reverse());
    expect(p2.hasMore).toBe(false);
  });

  it('filters by level, case-insensitively', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    await seedAlerts(h, seed.general.webhookToken, 2, 'info');
    const errors = await seedAlerts(h, seed.general.webhookToken, 3, 'error');
    for (const q of ['error', 'ERROR']) {
      const page = await bodyOf.page(await h.call('GET', `/api/channels/general/alerts?level=${q}`, { token: seed.ownerToken }));
      expect(page.alerts.map((a) => a.id).sort()).toEqual(errors.sort());
      expect(page.alerts.every((a) => a.level === 'ERROR')).toBe(true);
    }
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['level=critical', 'level'],
    ['cursor=nope', 'cursor'],
    ['after=1', 'after'],
  ])('rejects %s with a 400 problem naming the parameter', async (query, param) => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const res = await h.call('GET', `/api/channels/general/alerts?${query}`, { token: seed.ownerToken });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await bodyOf.invalid(res);
    expect(body).toMatchObject({ type: 'http://alertbridge.test/problems/invalid-query', status: 400, title: 'invalid query parameter', error: 'invalid query parameter' });
    expect(body.details.map((d) => d.path[0])).toContain(param);
  });

  it('accepts limit=1 and limit=100', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    await seedAlerts(h, seed.general.webhookToken, 2);
    const one = await bodyOf.page(await h.call('GET', '/api/channels/general/alerts?limit=1', { token: seed.ownerToken }));
    expect(one.alerts).toHaveLength(1);
    expect(one.hasMore).toBe(true);
    const hundred = await h.call('GET', '/api/channels/general/alerts?limit=100', { token: seed.ownerToken });
    expect(hundred.status).toBe(200);
  });
});

describe('single alert', () => {
  it("adds the channel's name and slug", async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const { body } = await postAlert(h, seed.deploys.webhookToken, { title: 'Deployed', level: 'success' });
    const res = await h.call('GET', `/api/alerts/${body.alertId}`, { token: seed.memberToken });
    expect(res.status).toBe(200);
    expect(await bodyOf.alert(res)).toMatchObject({ id: body.alertId, title: 'Deployed', level: 'SUCCESS', channelId: seed.deploys.id, channelName: 'Deploys', channelSlug: 'deploys', isRead: false });
  });
});

describe('read state', () => {
  it('is per user: PATCH marks read for the caller only, and back to unread', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const [a1, a2] = await seedAlerts(h, seed.general.webhookToken, 2);
    const count = async (token: string) =>
      (await bodyOf.channels(await h.call('GET', '/api/channels', { token }))).find((c) => c.slug === 'general')!._count.alerts;
    expect(await count(seed.ownerToken)).toBe(2);
    const res = await h.call('PATCH', `/api/alerts/${a1}`, { token: seed.ownerToken, json: { isRead: true } });
    expect(res.status).toBe(200);
    expect(await bodyOf.alert(res)).toMatchObject({ id: a1, isRead: true, channelSlug: 'general' });
    expect(await count(seed.ownerToken)).toBe(1);
    expect(await count(seed.memberToken)).toBe(2);
    const forMember = await bodyOf.alert(await h.call('GET', `/api/alerts/${a1}`, { token: seed.memberToken }));
    expect(forMember.isRead).toBe(false);
    // Idempotent.
    await h.call('PATCH', `/api/alerts/${a1}`, { token: seed.ownerToken, json: { isRead: true } });
    expect(await count(seed.ownerToken)).toBe(1);
    await h.call('PATCH', `/api/alerts/${a1}`, { token: seed.ownerToken, json: { isRead: false } });
    expect(await count(seed.ownerToken)).toBe(2);
    // The other alert was never touched.
    expect((await bodyOf.alert(await h.call('GET', `/api/alerts/${a2}`, { token: seed.ownerToken }))).isRead).toBe(false);
  });

  it('rejects a PATCH body that is not {isRead: boolean}', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const [a1] = await seedAlerts(h, seed.general.webhookToken, 1);
    for (const body of [{}, { isRead: 'yes' }]) {
      const res = await h.call('PATCH', `/api/alerts/${a1}`, { token: seed.ownerToken, json: body });
      expect(res.status).toBe(400);
      expect((await bodyOf.invalid(res)).details[0]!.path).toEqual(['isRead']);
    }
    const bad = await h.call('PATCH', `/api/alerts/${a1}`, { token: seed.ownerToken, body: '{nope', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
  });

  it('mark-all-read is per user, per channel or everywhere, and idempotent', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    await seedAlerts(h, seed.general.webhookToken, 3);
    const [d1] = await seedAlerts(h, seed.deploys.webhookToken, 2);
    const counts = async (token: string) =>
      Object.fromEntries((await bodyOf.channels(await h.call('GET', '/api/channels', { token }))).map((c) => [c.slug, c._count.alerts]));
    // An exception made before is folded in.
    await h.call('PATCH', `/api/alerts/${d1}`, { token: seed.ownerToken, json: { isRead: true } });
    const one = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, json: { channelId: 'general' } });
    expect(one.status).toBe(200);
    expect(await bodyOf.markedAllRead(one)).toEqual({ success: true, channelIds: [seed.general.id] });
    expect(await counts(seed.ownerToken)).toEqual({ general: 0, deploys: 1, security: 0 });
    expect(await counts(seed.memberToken)).toEqual({ general: 3, deploys: 2 });
    const all = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken });
    expect(all.status).toBe(200);
    expect(await counts(seed.ownerToken)).toEqual({ general: 0, deploys: 0, security: 0 });
    const again = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, json: {} });
    expect(again.status).toBe(200);
    expect(await counts(seed.ownerToken)).toEqual({ general: 0, deploys: 0, security: 0 });
    const page = await bodyOf.page(await h.call('GET', '/api/channels/general/alerts', { token: seed.ownerToken }));
    expect(page.alerts.every((a) => a.isRead)).toBe(true);
    // New alerts after the mark are unread; a read alert can be marked unread again.
    const [fresh] = await seedAlerts(h, seed.general.webhookToken, 1);
    expect((await counts(seed.ownerToken)).general).toBe(1);
    const oldest = page.alerts[2]!.id;
    await h.call('PATCH', `/api/alerts/${oldest}`, { token: seed.ownerToken, json: { isRead: false } });
    expect((await counts(seed.ownerToken)).general).toBe(2);
    expect((await bodyOf.alert(await h.call('GET', `/api/alerts/${fresh}`, { token: seed.ownerToken }))).isRead).toBe(false);
    // A channel id works as well as a slug; an unknown one is a 404.
    expect((await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, json: { channelId: seed.general.id } })).status).toBe(200);
    expect((await counts(seed.ownerToken)).general).toBe(0);
    expect((await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, json: { channelId: 'nope' } })).status).toBe(404);
  });
});

describe('bad bodies on the read API', () => {
  it('answers 415 for a body that is not JSON, never a 500', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const [a1] = await seedAlerts(h, seed.general.webhookToken, 1);
    for (const [method, path] of [['PATCH', `/api/alerts/${a1}`], ['POST', '/api/alerts/mark-all-read']] as const) {
      const res = await h.call(method, path, { token: seed.ownerToken, body: 'isRead=true', headers: { 'content-type': 'text/plain' } });
      expect(res.status).toBe(415);
      expect((await bodyOf.problem(res)).type).toBe('http://alertbridge.test/problems/unsupported-content-type');
    }
    const bad = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, body: '{bad', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    const num = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, json: { channelId: 5 } });
    expect(num.status).toBe(400);
    expect((await bodyOf.invalid(num)).details[0]!.path).toEqual(['channelId']);
  });

  it('refuses an over-large body with 413 before reading it, whether its length is declared or it is streamed', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const [a1] = await seedAlerts(h, seed.general.webhookToken, 1);
    const server = await listen(h.app.fetch);
    try {
      // Declared: refused from the Content-Length alone (the client never has to send the bytes).
      const declared = await rawRequest(server.url, 'PATCH', `/api/alerts/${a1}`, {
        authorization: `Bearer ${seed.ownerToken}`,
        'content-type': 'application/json',
        'content-length': String(1024 * 1024),
      }, '{"isRead":true}');
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body).type).toBe('http://alertbridge.test/problems/payload-too-large');
    } finally {
      await server.close();
    }
    // Streamed (no Content-Length): cut off once past the cap.
    const big = JSON.stringify({ isRead: true, pad: 'x'.repeat(64 * 1024) });
    const stream = new ReadableStream({ start: (ctl) => (ctl.enqueue(new TextEncoder().encode(big)), ctl.close()) });
    const streamed = await h.app.request(`/api/alerts/${a1}`, {
      method: 'PATCH',
      body: stream,
      headers: { authorization: `Bearer ${seed.ownerToken}`, 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${a1}`, { token: seed.ownerToken }));
    expect(alert.isRead).toBe(false);
  });

  it('accepts a body that starts with a UTF-8 byte order mark, as the webhook does', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const [a1] = await seedAlerts(h, seed.general.webhookToken, 1);
    const bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const patched = await h.call('PATCH', `/api/alerts/${a1}`, { token: seed.ownerToken, body: bom('{"isRead":true}'), headers: { 'content-type': 'application/json' } });
    expect(patched.status).toBe(200);
    expect((await bodyOf.alert(patched)).isRead).toBe(true);
    const marked = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.memberToken, body: bom('{"channelId":"general"}'), headers: { 'content-type': 'application/json' } });
    expect(marked.status).toBe(200);
    expect((await bodyOf.markedAllRead(marked)).channelIds).toEqual([seed.general.id]);
  });
});

describe('mark-all-read without a body', () => {
  it('marks everything read also when the client sends Content-Type: application/json and no body', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    await seedAlerts(h, seed.general.webhookToken, 2);
    const res = await h.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect((await bodyOf.markedAllRead(res)).channelIds).toHaveLength(3);
    const channels = await bodyOf.channels(await h.call('GET', '/api/channels', { token: seed.ownerToken }));
    expect(channels.every((c) => c._count.alerts === 0)).toBe(true);
  });
});

describe('page refusals keep their order', () => {
  it('answers a channel not found, then a level on a chat channel, then a bad status', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    await h.services.discordLinks.connect(seed.deploys.id, '1300000000000000000');
    const get = async (path: string) => {
      const res = await h.call('GET', path, { token: seed.ownerToken });
      return { status: res.status, text: await res.text() };
    };
    const missing = await get('/api/channels/nope/alerts?level=info&status=bogus');
    expect(missing.status).toBe(404);
    const level = await get('/api/channels/deploys/alerts?level=info&status=bogus');
    expect(level.status).toBe(400);
    expect(level.text).toContain('level is not supported on chat-connected channels');
    // The same refusal without the bad status (the problem's instance and request id aside).
    const refusal = (text: string) => {
      const { instance: _instance, requestId: _requestId, ...rest } = JSON.parse(text) as Record<string, unknown>;
      return rest;
    };
    expect(refusal((await get('/api/channels/deploys/alerts?level=info')).text)).toEqual(refusal(level.text));
    const status = await get('/api/channels/general/alerts?status=bogus');
    expect(status.status).toBe(400);
    expect(status.text).toContain('status must be a comma-separated list');
  });
});
