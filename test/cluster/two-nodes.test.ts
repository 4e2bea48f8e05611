import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { createEngineHarness, type Harness, type HarnessNode, seedWorkspace } from '../helpers/harness.js';
import { describePg } from '../helpers/pg.js';
import { eventually } from '../helpers/poll.js';
import { SseClient } from '../helpers/sse-client.js';
import { png } from '../media/fixtures.js';

/**
 * Two nodes in one process on one PostgreSQL database and one media directory, each with its own
 * services (pool, LISTEN connection, leader lock, claims connection), built as `npm start` builds
 * them: nothing a request needs lives in one node's memory.
 */
describePg('two nodes on one PostgreSQL database', () => {
  let a: Harness;
  let b: HarnessNode;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  beforeAll(async () => {
    const env = { WEBHOOK_RATE_LIMIT_PER_MINUTE: '3', ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' };
    a = await createEngineHarness('postgres', { env });
    // B's streams never poll the change log during a test: only the notification from A's commit can wake them.
    b = await a.node({ env, overrides: { live: { pollIntervalMs: 10 * 60_000 } } });
    seed = await seedWorkspace(a.services);
  });
  afterAll(async () => a?.close());

  const post = (n: HarnessNode, token: string, payload: unknown, headers: Record<string, string> = {}) =>
    n.call('POST', `/api/webhook/${token}`, { json: payload, headers });

  it('exactly one of them leads (runs the singletons)', async () => {
    await eventually(() => a.services.leadership.isLeader !== b.services.leadership.isLeader, 'one leader');
    expect([a.services.leadership.isLeader, b.services.leadership.isLeader].filter(Boolean)).toHaveLength(1);
  });

  it('both nodes sign alike: the same VAPID key and the same unsubscribe links (app secrets in the database)', () => {
    expect(b.services.push.vapid.publicKey).toBe(a.services.push.vapid.publicKey);
    expect(b.services.unsubscribe.url(seed.member.id, seed.general.id)).toBe(a.services.unsubscribe.url(seed.member.id, seed.general.id).replace(a.base, b.base));
  });

  it('a token revoked on node B is refused on node A at its next request', async () => {
    const made = await a.services.accounts.createToken(seed.ws.id, seed.member.id, 'laptop');
    expect((await a.call('GET', '/api/channels', { token: made.token })).status).toBe(200);
    await b.services.accounts.revokeToken(made.id);
    expect((await a.call('GET', '/api/channels', { token: made.token })).status).toBe(401);
  });

  it('a webhook rotated on node A stops working on node B (its cached channel dropped by the notification)', async () => {
    const ch = await a.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Rotating' });
    expect((await post(b, ch.webhookToken, { title: 'cached on B' })).status).toBe(201);
    const rotated = await a.services.accounts.rotateWebhook(ch.id);
    // The notification is delivered after A's COMMIT: milliseconds, polled rather than slept (through B's
    // own lookup: polled POSTs would spend the channel's budget of 3 while the old token still worked).
    await eventually(async () => (await b.services.webhookChannels.find(ch.webhookToken)) === undefined, 'the old token dropped on B');
    expect((await post(b, ch.webhookToken, { title: 'old token' })).status).toBe(404);
    expect((await post(b, rotated.webhookToken, { title: 'new token' })).status).toBe(201);
  });

  it('an alert posted to node A streams on node B, and a mark-all-read on A updates B\'s stream', async () => {
    const stream = await SseClient.open(`${b.base}/api/stream?channel=deploys`, { token: seed.ownerToken });
    expect(stream.status).toBe(200);
    try {
      const { alertId } = await bodyOf.accepted(await post(a, seed.deploys.webhookToken, { title: 'from node A' }));
      await stream.until((c) => c.ofType('alert.created').some((e) => e.data.includes(alertId)), 'alert.created on B', 3_000);
      expect(stream.ofType('read.updated')).toHaveLength(0);
      const marked = await a.call('POST', '/api/alerts/mark-all-read', { token: seed.ownerToken, json: { channelId: 'deploys' } });
      expect(marked.status).toBe(200);
      await stream.until((c) => c.ofType('read.updated').length > 0, 'read.updated on B', 3_000);
    } finally {
      stream.close();
    }
  });

  it('an Idempotency-Key in flight on node A is refused with 409 on node B; the answer is replayed on B after', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let hits = 0;
    const slow = http.createServer((_req, res) => {
      hits++;
      void gate.then(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png(11)));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/c.png`;
      const send = (n: HarnessNode) => post(n, seed.general.webhookToken, { title: 'keyed', attachments: [{ url }] }, { 'idempotency-key': 'two-nodes' });
      const first = send(a);
      await eventually(() => hits > 0, 'A fetching the attachment');
      expect((await send(b)).status).toBe(409);
      release();
      expect((await first).status).toBe(201);
      const replay = await send(b);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotency-replayed')).toBe('true');
      expect(await a.query(`SELECT id FROM alerts WHERE title = 'keyed'`)).toHaveLength(1);
    } finally {
      await new Promise((r) => slow.close(r));
    }
  });

  it('the webhook rate limit is one budget for both nodes', async () => {
    const ch = await a.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Limited' });
    const statuses = [];
    for (const n of [a, b, a, b]) statuses.push((await post(n, ch.webhookToken, { title: 'hit' })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
  });

  it('a media file uploaded through node A is served by node B (one media directory)', async () => {
    const form = new FormData();
    form.append('payload', JSON.stringify({ title: 'shared file' }));
    form.append('file', new Blob([new Uint8Array(png(12))], { type: 'image/png' }), 'x.png');
    const ch = await a.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Files' });
    const { alertId } = await bodyOf.accepted(await a.call('POST', `/api/webhook/${ch.webhookToken}`, { body: form }));
    const alert = await bodyOf.alert(await b.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    const key = alert.attachments[0]!.url.split('/').pop()!;
    expect((await fetch(`${b.base}/media/${key}`)).status).toBe(200);
  });
});
