import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import { alertDeletion } from '../../src/domain/alert-deletion.js';
import { openServices } from '../../src/services.js';
import { type Harness as Harness, callOf, postAlert } from '../helpers/harness.js';
import { SseClient } from '../helpers/sse-client.js';
import { closeStreamServer, openStreamServer, type StreamServer } from '../helpers/stream-server.js';
import { accepted, bodyOf } from '../helpers/bodies.js';
import { eventually } from '../helpers/poll.js';

let h: Harness;
let seed: StreamServer['seed'];
let server: StreamServer['server'];
const clients: SseClient[] = [];

beforeEach(async () => ({ h, seed, server } = await openStreamServer({ heartbeatMs: 50, pollIntervalMs: 100 })));
afterEach(() => closeStreamServer({ h, seed, server }, clients));

async function connect(token: string, opts: { query?: string; lastEventId?: string } = {}): Promise<SseClient> {
  const c = await SseClient.open(`${server.url}/api/stream${opts.query ?? ''}`, { token, lastEventId: opts.lastEventId });
  clients.push(c);
  return c;
}

async function post(channel: { webhookToken: string }, payload: object): Promise<string> {
  const { res, body } = await postAlert(h, channel.webhookToken, payload);
  expect(res.status).toBeLessThan(300);
  return accepted(body).alertId;
}

const data = (c: SseClient) => c.events.map((e) => JSON.parse(e.data));

describe('GET /api/stream', () => {
  it('401 without a token, with the read API body', async () => {
    const res = await fetch(`${server.url}/api/stream`);
    expect(res.status).toBe(401);
    expect(await bodyOf.authFailure(res)).toMatchObject({ error: 'Unauthorized', reason: 'no_credentials' });
  });

  it('streams created and updated alerts in order, rendered as the read API renders them for this user', async () => {
    const c = await connect(seed.ownerToken);
    expect(c.status).toBe(200);
    expect(c.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await c.until((x) => x.retry !== undefined, 'the retry hint');
    expect(c.retry).toBe(3000);

    const a1 = await post(seed.general, { title: 'first', level: 'warning' });
    const run = { title: 'Deploy', workflow: { runId: 'r1', state: 'running', steps: [{ name: 'build', state: 'running' }] } };
    const a2 = await post(seed.deploys, run);
    await post(seed.deploys, { ...run, workflow: { ...run.workflow, state: 'passed', steps: [{ name: 'build', state: 'done', seconds: 3 }] } });
    const a3 = await post(seed.secret, { title: 'private, but the owner is a member' });
    await c.waitForEvents(4);

    expect(c.events.map((e) => [e.event, JSON.parse(e.data).id])).toEqual([
      ['alert.created', a1],
      ['alert.created', a2],
      ['alert.updated', a2],
      ['alert.created', a3],
    ]);
    const ids = c.events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(4);

    const listed = await bodyOf.page(await h.call('GET', `/api/channels/${seed.general.slug}/alerts`, { token: seed.ownerToken }));
    expect(data(c)[0]).toEqual(listed.alerts[0]);
    expect(data(c)[0]).toMatchObject({ title: 'first', level: 'WARNING', isRead: false });
    expect(data(c)[2]).toMatchObject({ workflow: { state: 'passed', steps: [{ name: 'build', state: 'done', seconds: 3 }] } });
  });

  it('a private channel leaks nothing to non-members, another workspace sees nothing, and a removed member stops receiving', async () => {
    const member = await connect(seed.memberToken);
    const owner = await connect(seed.ownerToken);
    const stranger = await connect(seed.strangerToken);

    await post(seed.secret, { title: 'secret 1' });
    const pub1 = await post(seed.general, { title: 'public 1' });
    await owner.waitForEvents(2);
    await member.waitForEvents(1);
    expect(data(member).map((a) => a.id)).toEqual([pub1]);

    await h.services.accounts.addChannelMember(seed.secret.id, seed.member.id);
    const secret2 = await post(seed.secret, { title: 'secret 2' });
    await member.waitForEvents(2);
    expect(data(member)[1].id).toBe(secret2);

    await h.services.accounts.removeChannelMember(seed.secret.id, seed.member.id);
    await post(seed.secret, { title: 'secret 3' });
    const pub2 = await post(seed.general, { title: 'public 2' });
    await owner.waitForEvents(5);
    await member.waitForEvents(3);
    expect(data(member).map((a) => a.title)).toEqual(['public 1', 'secret 2', 'public 2']);
    expect(data(member)[2].id).toBe(pub2);
    expect(member.events.some((e) => e.data.includes('secret 1') || e.data.includes('secret 3'))).toBe(false);
    await stranger.until((c) => c.comments.includes('heartbeat'), 'a heartbeat'); // connected, just sees nothing
    expect(stranger.events).toHaveLength(0);
  });

  it('a user removed from the workspace has the stream closed', async () => {
    const member = await connect(seed.memberToken);
    await post(seed.general, { title: 'before' });
    await member.waitForEvents(1);
    await h.services.accounts.removeMember(seed.ws.id, seed.member.id);
    await post(seed.general, { title: 'after' });
    await member.until((c) => c.ended, 'the stream to end');
    expect(member.events).toHaveLength(1);
  });

  it('Last-Event-ID (header or query) resumes without gaps or duplicates', async () => {
    const first = await connect(seed.ownerToken);
    for (const t of ['a1', 'a2', 'a3']) await post(seed.general, { title: t });
    await first.waitForEvents(3);
    first.close();
    const resumeAfter = first.events[1]!.id!;

    for (const t of ['a4', 'a5']) await post(seed.general, { title: t });
    await post(seed.secret, { title: 'owner sees this one' });

    const resumed = await connect(seed.ownerToken, { lastEventId: resumeAfter });
    await resumed.waitForEvents(4);
    expect(data(resumed).map((a) => a.title)).toEqual(['a3', 'a4', 'a5', 'owner sees this one']);

    // A non-member resuming from 0 gets the public history only.
    const viaQuery = await connect(seed.memberToken, { query: '?lastEventId=0' });
    await viaQuery.waitForEvents(5);
    expect(data(viaQuery).map((a) => a.title)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);

    // then live events continue after the replay, without a duplicate
    await post(seed.general, { title: 'a6' });
    await resumed.waitForEvents(5);
    await viaQuery.waitForEvents(6);
    expect(data(resumed).map((a) => a.title).slice(-2)).toEqual(['owner sees this one', 'a6']);
    expect(new Set(resumed.events.map((e) => e.id)).size).toBe(resumed.events.length);

    const bad = await fetch(`${server.url}/api/stream`, { headers: { authorization: `Bearer ${seed.ownerToken}`, 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
  });

  it('a resume point whose events were pruned gets a resync event first', async () => {
    for (const t of ['old 1', 'old 2']) await post(seed.general, { title: t });
    expect(await h.exec('DELETE FROM alert_events')).toBe(2); // what the retention prune does after 7 days
    await post(seed.general, { title: 'kept' });
    const c = await connect(seed.ownerToken, { lastEventId: '0' });
    await c.waitForEvents(2);
    expect(c.events[0]).toMatchObject({ event: 'resync', id: undefined });
    expect(JSON.parse(c.events[0]!.data).reason).toMatch(/pruned/);
    expect(JSON.parse(c.events[1]!.data).title).toBe('kept');
  });

  it('changes committed by another process (no in-process wake-up) arrive through the poll', async () => {
    const c = await connect(seed.ownerToken);
    // A second process on the same installation: the same DATA_DIR's SQLite file, or another node on the same PostgreSQL database.
    const other = await openServices(h.config);
    try {
      await postAlert({ call: callOf(createApp(other)) }, seed.general.webhookToken, { title: 'from elsewhere' });
    } finally {
      await other.close();
    }
    await c.waitForEvents(1);
    expect(data(c)[0].title).toBe('from elsewhere');
  });

  it('?channel= filters by id or slug; a channel you cannot see is a 404', async () => {
    const c = await connect(seed.ownerToken, { query: `?channel=${seed.deploys.slug}` });
    await post(seed.general, { title: 'not this' });
    await post(seed.deploys, { title: 'this' });
    await c.waitForEvents(1);
    expect(data(c).map((a) => a.title)).toEqual(['this']);

    const res = await fetch(`${server.url}/api/stream?channel=${seed.secret.id}`, { headers: { authorization: `Bearer ${seed.memberToken}` } });
    expect(res.status).toBe(404);
  });

  it('alert.deleted carries only the ids', async () => {
    const c = await connect(seed.ownerToken);
    const id = await post(seed.general, { title: 'to be deleted' });
    await c.waitForEvents(1);
    // The use case the dashboard's delete and `admin alert delete` run.
    await alertDeletion(h.services).deleteAlert(id);
    await c.waitForEvents(2);
    expect(c.events.map((e) => e.event)).toEqual(['alert.created', 'alert.deleted']);
    expect(JSON.parse(c.events[1]!.data)).toEqual({ id, channelId: seed.general.id });
    expect(Number(c.events[1]!.id)).toBeGreaterThan(Number(c.events[0]!.id));
  });

  it('sends heartbeat comments and cleans up its listeners when the client goes away', async () => {
    const c = await connect(seed.ownerToken);
    await c.until((x) => x.comments.filter((m) => m === 'heartbeat').length >= 2, 'two heartbeats');
    expect(h.services.live.size).toBe(1);
    expect(h.services.bus.listenerCount('alert-events')).toBe(1);
    c.close();
    await eventually(() => h.services.live.size === 0, 'the closed stream to be dropped');
    expect(h.services.live.size).toBe(0);
    expect(h.services.bus.listenerCount('alert-events')).toBe(0);
  });

  it('is described in the OpenAPI document as text/event-stream', async () => {
    const doc = await bodyOf.openApi(await h.call('GET', '/openapi.json'));
    const op = doc.paths['/api/stream']?.get;
    expect(Object.keys(op?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect(op?.security).toEqual([{ bearerAuth: [] }]);
    expect(op?.parameters?.map((p) => p.name).sort()).toEqual(['channel', 'last-event-id', 'lastEventId']);
  });
});
