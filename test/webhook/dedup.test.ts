import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { listen, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';

/** A sender's dedupKey over real HTTP: open → update → resolve → reopen, with counts, unread state, billing and notifications. */
let h: Harness | undefined;
let server: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await h?.close();
  h = undefined;
});

async function setUp() {
  h = await startHarness();
  const seed = await seedWorkspace(h.services);
  server = await listen(h.app.fetch);
  const post = (body: unknown, headers: Record<string, string> = {}, token = seed.general.webhookToken) =>
    fetch(`${server!.url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const api = (method: string, path: string, token: string, json?: unknown) =>
    fetch(`${server!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const read = async (alertId: string, token = seed.ownerToken) => bodyOf.alert(await api('GET', `/api/alerts/${alertId}`, token));
  const jobs = async () => (await h!.query<{ kind: string }>('SELECT kind FROM notification_jobs ORDER BY id')).map((r) => r.kind);
  const billed = async () => Number((await h!.query<{ n: number }>('SELECT COALESCE(SUM(events), 0) AS n FROM usage_counters'))[0]!.n);
  return { seed, post, api, read, jobs, billed };
}

describe('POST /api/webhook/{token} with a dedupKey', () => {
  it('open → update → level rise → resolve → nothing open → reopen: one alert, its counts, unread state, notifications and billing', async () => {
    const { seed, post, api, read, jobs, billed } = await setUp();
    const created = await post({ title: 'Disk 91% on db-1', level: 'warning', dedupKey: 'disk:db-1', source: 'diskmon' });
    expect(created.status).toBe(201);
    const alertId = (await bodyOf.accepted(created)).alertId;
    expect(await read(alertId)).toMatchObject({ status: 'open', occurrences: 1, resolvedBy: null, acknowledgedBy: null, snoozedUntil: null, silencedBy: null });
    expect(await jobs()).toEqual(['alert.created']);
    expect(await billed()).toBe(1);
    expect((await api('PATCH', `/api/alerts/${alertId}`, seed.memberToken, { isRead: true })).status).toBe(200);
    // A person acknowledges: a sender's update keeps the status.
    expect((await api('PATCH', `/api/alerts/${alertId}`, seed.ownerToken, { status: 'acknowledged' })).status).toBe(200);

    // The same problem again: updated in place, silently (same level), still read.
    const again = await post({ title: 'Disk 93% on db-1', level: 'warning', dedupKey: 'disk:db-1', message: 'growing', source: 'diskmon' });
    expect(again.status).toBe(201);
    expect((await bodyOf.accepted(again)).alertId).toBe(alertId);
    let alert = await read(alertId, seed.memberToken);
    expect(alert).toMatchObject({ title: 'Disk 93% on db-1', message: 'growing', occurrences: 2, status: 'acknowledged', isRead: true });
    expect(await jobs()).toEqual(['alert.created']);
    expect(await billed()).toBe(1);

    // The level rose: unread again and notified, still the same alert.
    await post({ title: 'Disk 99% on db-1', level: 'error', dedupKey: 'disk:db-1', source: 'diskmon' });
    alert = await read(alertId, seed.memberToken);
    expect(alert).toMatchObject({ level: 'ERROR', occurrences: 3, isRead: false, status: 'acknowledged' });
    expect(await jobs()).toEqual(['alert.created', 'alert.created']);

    // Resolved by the sender: named by its source, notified once, free.
    const resolved = await post({ title: 'Disk back to 60% on db-1', level: 'success', dedupKey: 'disk:db-1', status: 'resolved', source: 'diskmon' });
    expect(resolved.status).toBe(201);
    expect((await bodyOf.accepted(resolved)).alertId).toBe(alertId);
    alert = await read(alertId);
    expect(alert).toMatchObject({ status: 'resolved', resolvedBy: { id: null, name: 'diskmon' }, occurrences: 3, title: 'Disk back to 60% on db-1' });
    expect(alert.resolvedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await jobs()).toEqual(['alert.created', 'alert.created', 'alert.resolved']);
    expect(await billed()).toBe(1);

    // Another resolve finds nothing open: 202, nothing stored.
    const before = await h!.count('alert_history');
    const nothing = await post({ title: 'Disk fine', dedupKey: 'disk:db-1', status: 'resolved' });
    expect(nothing.status).toBe(202);
    expect(await nothing.json()).toEqual({ success: true, matched: false });
    const unknown = await post({ title: 'never opened', dedupKey: 'other', status: 'resolved' });
    expect(unknown.status).toBe(202);
    expect(await h!.count('alerts')).toBe(1);
    expect(await h!.count('alert_history')).toBe(before);
    expect(await jobs()).toHaveLength(3);

    // The key again after the resolve: the same alert reopens, unread for everyone, notified and billed.
    await api('POST', '/api/alerts/mark-all-read', seed.memberToken);
    const reopened = await post({ title: 'Disk 95% on db-1', level: 'error', dedupKey: 'disk:db-1', source: 'diskmon' });
    expect(reopened.status).toBe(201);
    expect((await bodyOf.accepted(reopened)).alertId).toBe(alertId);
    alert = await read(alertId, seed.memberToken);
    expect(alert).toMatchObject({ status: 'open', occurrences: 4, isRead: false, resolvedBy: null, resolvedAt: null, acknowledgedBy: null });
    expect((await read(alertId, seed.ownerToken)).isRead).toBe(false);
    expect(await jobs()).toEqual(['alert.created', 'alert.created', 'alert.resolved', 'alert.created']);
    expect(await billed()).toBe(2);

    const history = (await (await api('GET', `/api/alerts/${alertId}/history`, seed.memberToken)).json()) as { history: { action: string; actor: unknown; via: string }[] };
    expect(history.history.map((e) => [e.action, e.actor, e.via])).toEqual([
      ['acknowledged', { id: seed.owner.id, name: 'Olive Owner' }, 'api'],
      ['resolved', { id: null, name: 'diskmon' }, 'webhook'],
      ['reopened', { id: null, name: 'diskmon' }, 'webhook'],
    ]);
  });

  it('keeps keys per channel, replays an Idempotency-Key without counting, and ignores status without a key', async () => {
    const { seed, post, read } = await setUp();
    const a = await bodyOf.accepted(await post({ title: 'x', dedupKey: 'k' }));
    const b = await bodyOf.accepted(await post({ title: 'x', dedupKey: 'k' }, {}, seed.deploys.webhookToken));
    expect(b.alertId).not.toBe(a.alertId);

    const first = await post({ title: 'y', dedupKey: 'k' }, { 'idempotency-key': 'retry-1' });
    const replay = await post({ title: 'y', dedupKey: 'k' }, { 'idempotency-key': 'retry-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(await replay.text()).toBe(await first.text());
    expect((await read(a.alertId)).occurrences).toBe(2);

    // Without a dedupKey, a status member is an unknown key, as before: a new alert each time.
    const plain1 = await bodyOf.accepted(await post({ title: 'z', status: 'resolved' }));
    const plain2 = await bodyOf.accepted(await post({ title: 'z', status: 'whatever' }));
    expect(plain1.alertId).not.toBe(plain2.alertId);
    expect((await read(plain1.alertId)).status).toBe('open');
  });

  it('refuses a bad status, a dedupKey with a workflow, a key too long and a resolve without a title: 400, nothing stored', async () => {
    const { post } = await setUp();
    const cases: [unknown, string][] = [
      [{ title: 't', dedupKey: 'k', status: 'closed' }, 'status'],
      [{ title: 't', dedupKey: 'k', workflow: { runId: 'r1', state: 'running', steps: [] } }, 'dedupKey'],
      [{ title: 't', dedupKey: 'k'.repeat(256) }, 'dedupKey'],
      [{ title: 't', dedupKey: '' }, 'dedupKey'],
      [{ dedupKey: 'k', status: 'resolved' }, 'title'],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = await bodyOf.invalid(res);
      expect(problem.details.map((d) => d.path.join('.'))).toContain(path);
    }
    expect(await h!.count('alerts')).toBe(0);
  });
});
