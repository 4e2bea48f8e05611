import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { bodyOf } from '../helpers/bodies.js';
import { listen, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { SseClient } from '../helpers/sse-client.js';

/** Status and snooze through PATCH /api/alerts/{id}, the history, the status filters and the live stream, over real HTTP. */
let h: Harness | undefined;
let server: { url: string; close(): Promise<void> } | undefined;
let live: SseClient | undefined;
afterEach(async () => {
  live?.close();
  live = undefined;
  await server?.close();
  server = undefined;
  await h?.close();
  h = undefined;
});

const T0 = Date.UTC(2026, 2, 2, 10, 0, 0);

async function setUp() {
  const clock = new ManualClock(T0);
  h = await startHarness({ overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  server = await listen(h.app.fetch);
  const api = (method: string, path: string, token: string, json?: unknown) =>
    fetch(`${server!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const post = async (title: string, token = seed.general.webhookToken) => {
    const res = await fetch(`${server!.url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
    return (await bodyOf.accepted(res)).alertId;
  };
  const history = async (alertId: string, token = seed.ownerToken) =>
    ((await (await api('GET', `/api/alerts/${alertId}/history`, token)).json()) as { history: { action: string; actor: { id: string | null; name: string }; via: string; snoozedUntil: string | null; createdAt: string }[] }).history;
  return { clock, seed, api, post, history };
}

describe('PATCH /api/alerts/{id} with status and snoozedUntil', () => {
  it('a member acknowledges, the owner resolves with isRead, anyone reopens: shared fields, per-user read state, one history row per change', async () => {
    const { clock, seed, api, post, history } = await setUp();
    const alertId = await post('Checkout 500s');
    live = await SseClient.open(`${server!.url}/api/stream`, { token: seed.memberToken });

    clock.advance(60_000);
    const acked = await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, { status: 'acknowledged' });
    expect(acked.status).toBe(200);
    expect(await bodyOf.alert(acked)).toMatchObject({
      status: 'acknowledged',
      acknowledgedAt: new Date(T0 + 60_000).toISOString(),
      acknowledgedBy: { id: seed.member.id, name: 'Max Member' },
      isRead: false,
      channelSlug: 'general',
    });
    // Asking again changes nothing: no second history row.
    expect((await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, { status: 'acknowledged' })).status).toBe(200);
    await live.until((c) => c.ofType('alert.updated').length >= 1, 'the acknowledgement');
    expect(JSON.parse(live.ofType('alert.updated')[0]!.data)).toMatchObject({ id: alertId, status: 'acknowledged' });

    clock.advance(60_000);
    const resolved = await bodyOf.alert(await api('PATCH', `/api/alerts/${alertId}`, seed.ownerToken, { status: 'resolved', isRead: true }));
    expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: { id: seed.owner.id, name: 'Olive Owner' }, acknowledgedBy: { id: seed.member.id, name: 'Max Member' }, isRead: true });
    // Read state stays per user; the status is everyone's.
    expect(await bodyOf.alert(await api('GET', `/api/alerts/${alertId}`, seed.memberToken))).toMatchObject({ status: 'resolved', isRead: false });

    const reopened = await bodyOf.alert(await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, { status: 'open' }));
    expect(reopened).toMatchObject({ status: 'open', acknowledgedBy: null, acknowledgedAt: null, resolvedBy: null, resolvedAt: null });
    expect((await history(alertId, seed.memberToken)).map((e) => [e.action, e.actor.name, e.via, e.createdAt])).toEqual([
      ['acknowledged', 'Max Member', 'api', new Date(T0 + 60_000).toISOString()],
      ['resolved', 'Olive Owner', 'api', new Date(T0 + 120_000).toISOString()],
      ['reopened', 'Max Member', 'api', new Date(T0 + 120_000).toISOString()],
    ]);
    expect(await h!.count('alert_history')).toBe(3);
  });

  it('snoozes until a future time and ends a snooze; a past or far snooze, a snooze of a resolved alert and bad bodies are 400s that change nothing', async () => {
    const { seed, api, post, history } = await setUp();
    const alertId = await post('Queue backlog');
    const until = new Date(T0 + 3_600_000).toISOString();
    const snoozed = await bodyOf.alert(await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, { snoozedUntil: until }));
    expect(snoozed).toMatchObject({ status: 'open', snoozedUntil: until });
    const woken = await bodyOf.alert(await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, { snoozedUntil: null }));
    expect(woken.snoozedUntil).toBeNull();
    expect((await history(alertId)).map((e) => [e.action, e.snoozedUntil])).toEqual([
      ['snoozed', until],
      ['unsnoozed', null],
    ]);

    const refused: [unknown, string][] = [
      [{ snoozedUntil: new Date(T0 - 1000).toISOString() }, 'snoozedUntil'],
      [{ snoozedUntil: new Date(T0 + 31 * 86_400_000).toISOString() }, 'snoozedUntil'],
      [{ snoozedUntil: 'tomorrow' }, 'snoozedUntil'],
      [{ status: 'resolved', snoozedUntil: until }, 'snoozedUntil'],
      [{ status: 'closed' }, 'status'],
      [{}, 'isRead'],
    ];
    for (const [json, path] of refused) {
      const res = await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((await bodyOf.invalid(res)).details.map((d) => d.path.join('.'))).toContain(path);
    }
    expect(await h!.count('alert_history')).toBe(2);
    expect(await bodyOf.alert(await api('GET', `/api/alerts/${alertId}`, seed.memberToken))).toMatchObject({ status: 'open', snoozedUntil: null });
  });

  it('a private alert is 404 for someone who cannot read it, for status changes and history alike', async () => {
    const { seed, api, post } = await setUp();
    const secret = await post('Key leaked', seed.secret.webhookToken);
    expect((await api('PATCH', `/api/alerts/${secret}`, seed.memberToken, { status: 'acknowledged' })).status).toBe(404);
    expect((await api('GET', `/api/alerts/${secret}/history`, seed.memberToken)).status).toBe(404);
    expect((await api('PATCH', `/api/alerts/${secret}`, seed.strangerToken, { status: 'resolved' })).status).toBe(404);
    expect(await h!.count('alert_history')).toBe(0);
    expect((await api('PATCH', `/api/alerts/${secret}`, seed.ownerToken, { status: 'acknowledged' })).status).toBe(200);
  });
});

describe('status filters', () => {
  it('the channel list and search take a comma-separated status; a bad one is a 400 naming it', async () => {
    const { seed, api, post } = await setUp();
    const open = await post('payment gateway down');
    const acked = await post('payment retries high');
    const resolved = await post('payment webhook slow');
    await api('PATCH', `/api/alerts/${acked}`, seed.ownerToken, { status: 'acknowledged' });
    await api('PATCH', `/api/alerts/${resolved}`, seed.ownerToken, { status: 'resolved' });

    const ids = async (path: string) => (await bodyOf.page(await api('GET', path, seed.memberToken))).alerts.map((a) => a.id);
    expect(await ids('/api/channels/general/alerts')).toEqual([resolved, acked, open]);
    expect(await ids('/api/channels/general/alerts?status=open')).toEqual([open]);
    expect(await ids('/api/channels/general/alerts?status=open,acknowledged')).toEqual([acked, open]);
    expect(await ids('/api/channels/general/alerts?status=resolved&limit=5')).toEqual([resolved]);
    const search = async (status: string) =>
      (await bodyOf.searchPage(await api('GET', `/api/search?q=payment&status=${status}`, seed.memberToken))).alerts.map((a) => a.id);
    expect(await search('acknowledged,resolved')).toEqual([resolved, acked]);

    for (const path of ['/api/channels/general/alerts?status=closed', '/api/channels/general/alerts?status=', '/api/search?q=payment&status=open,bogus']) {
      const res = await api('GET', path, seed.memberToken);
      expect(res.status, path).toBe(400);
      expect((await bodyOf.invalid(res)).details.map((d) => d.path.join('.'))).toEqual(['status']);
    }
  });
});
