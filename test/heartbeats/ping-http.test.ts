import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import type { HeartbeatCheck } from '../../src/domain/heartbeats/ports.js';
import { seedWorkspace, startHarness, type Harness, type HarnessNode } from '../helpers/harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

interface AlertRow extends Record<string, unknown> {
  id: string;
  title: string;
  level: string;
  status: string;
  fieldsJson: string | null;
  dedupKey: string | null;
  resolvedByJson: string | null;
}

/** An alert's fields as name and value (stored as label, value, inline). */
const fieldsOf = (a: AlertRow) => (JSON.parse(a.fieldsJson ?? '[]') as { label: string; value: string }[]).map((f) => ({ name: f.label, value: f.value }));

/**
 * Issue 28 through real HTTP on the file's engine (also run on PostgreSQL: vitest.config.ts
 * ON_POSTGRES): every ping form answers as Healthchecks does, the states follow an injected clock,
 * and going down opens one alert that coming back up resolves.
 */
describe('heartbeat pings over HTTP', () => {
  let h: Harness;
  let clock: ManualClock;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let node: HarnessNode;

  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 5, 8, 0));
    h = await startHarness({ serve: true, overrides: { clock } });
    node = h;
    seed = await seedWorkspace(h.services);
  });
  afterEach(async () => h.close());

  const checks = () => node.services.heartbeats.checks;
  const create = (over: Partial<Parameters<ReturnType<typeof checks>['create']>[0]> = {}) =>
    checks().create({ channelId: seed.general.id, name: 'Nightly backup', period: '1h', grace: '10m', ...over });
  const ping = (path: string, init: RequestInit = {}) => fetch(new URL(path, node.base), init);
  const text = async (r: Response) => [r.status, await r.text()] as const;
  const alerts = (channelId: string) =>
    h.query<AlertRow>(
      `SELECT id, title, level, status, fields_json AS "fieldsJson", dedup_key AS "dedupKey", resolved_by_json AS "resolvedByJson" FROM alerts WHERE channel_id = '${channelId}' ORDER BY id`,
    );
  const stored = async (c: HeartbeatCheck) => (await checks().require(c.id));
  const status = async (c: HeartbeatCheck) => {
    const [row] = (await (await node.call('GET', '/api/heartbeats', { token: seed.ownerToken })).json()) as { id: string; status: string }[];
    return row?.id === c.id ? row.status : undefined;
  };

  it('answers every Healthchecks ping form: 200 OK, 404 not found, 400 for a bad suffix or rid', async () => {
    const c = await create();
    const key = await checks().pingKey(seed.ws.id);
    expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const [method, path] of [
      ['GET', `/ping/${c.pingUuid}`],
      ['POST', `/ping/${c.pingUuid}/start`],
      ['HEAD', `/ping/${c.pingUuid}/0`],
      ['GET', `/ping/${c.pingUuid}/log`],
      ['GET', `/ping/${key}/${c.slug}`],
      ['POST', `/ping/${key}/${c.slug}/start`],
      ['GET', `/ping/${key}/${c.slug}/0`],
      ['GET', `/ping/${key}/${c.slug}/log`],
    ] as const) {
      const r = await ping(path, { method });
      expect(r.status, `${method} ${path}`).toBe(200);
      expect(await r.text()).toBe(method === 'HEAD' ? '' : 'OK');
      expect(r.headers.get('ping-body-limit')).toBe('10000');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect(await text(await ping(`/ping/${c.pingUuid.replace(/^./, c.pingUuid[0] === 'a' ? 'b' : 'a')}`))).toEqual([404, 'not found']);
    expect(await text(await ping(`/ping/${key}/nope`))).toEqual([404, 'not found']);
    expect(await text(await ping(`/ping/wrong-key-000000000000/${c.slug}`))).toEqual([404, 'not found']);
    expect(await text(await ping(`/ping/not-a-uuid`))).toEqual([404, 'not found']);
    expect(await text(await ping(`/ping/${c.pingUuid}/256`))).toEqual([400, 'invalid url format']);
    expect(await text(await ping(`/ping/${c.pingUuid}?rid=nope`))).toEqual([400, 'invalid uuid format']);
    expect(await text(await ping(`/ping/${key}/Nightly-Backup`))).toEqual([400, 'invalid url format']);
    expect((await stored(c)).pingCount).toBe(8);
  });

  it('runs a Healthchecks client sequence: start, log, exit status; durations paired by rid; the body kept as the log', async () => {
    const c = await create();
    const rid = 'a0a1a2a3-b0b1-4c0c-8d0d-e0e1e2e3e4e5';
    expect((await ping(`/ping/${c.pingUuid}/start?rid=${rid}`, { method: 'POST', headers: { 'user-agent': 'runitor/1.2' } })).status).toBe(200);
    clock.advance(MIN);
    expect((await ping(`/ping/${c.pingUuid}/log?rid=${rid}`, { method: 'POST', body: 'halfway there' })).status).toBe(200);
    clock.advance(MIN);
    const log = `${'x'.repeat(12_000)}`;
    expect((await ping(`/ping/${c.pingUuid}/0?rid=${rid}`, { method: 'POST', body: `backup done\n${log}` })).status).toBe(200);
    const after = await stored(c);
    expect(after).toMatchObject({ status: 'up', lastDurationMs: 2 * MIN, lastStartAt: null, pingCount: 3 });
    const pings = await checks().pings(c.id, 10);
    expect(pings.map((p) => [p.kind, p.exitStatus, p.rid])).toEqual([
      ['success', 0, rid],
      ['log', null, rid],
      ['start', null, rid],
    ]);
    expect(pings[0]!.body!.length).toBe(10_000);
    expect(pings[0]!.body!.startsWith('backup done\n')).toBe(true);
    expect(pings[0]!.durationMs).toBe(2 * MIN);
    expect(pings[2]!.userAgent).toBe('runitor/1.2');
    // Binary and NUL bytes (which PostgreSQL text refuses) are kept as text, never a 500.
    expect(await text(await ping(`/ping/${c.pingUuid}/log`, { method: 'POST', body: new Uint8Array([0x61, 0x00, 0xff, 0x62]) }))).toEqual([200, 'OK']);
    expect((await checks().pings(c.id, 1))[0]!.body).toMatch(/^a.*b$/);
  });

  it('goes late, then down at the due time; one alert; repeated failures update it; back up resolves it', async () => {
    const c = await create();
    await ping(`/ping/${c.pingUuid}`);
    expect(await status(c)).toBe('up');
    clock.advance(HOUR);
    expect(await status(c)).toBe('late');
    expect((await node.services.heartbeats.timer.pass()).wentDown).toBe(0);
    expect(await alerts(seed.general.id)).toEqual([]);

    clock.advance(10 * MIN);
    expect(await status(c)).toBe('down');
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 1, alertsWritten: 1 });
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 0, alertsWritten: 0 });
    let [alert] = await alerts(seed.general.id);
    expect(alert).toMatchObject({ title: 'Nightly backup is down', level: 'ERROR', status: 'open', dedupKey: null });
    const fields = fieldsOf(alert!) as { name: string; value: string }[];
    expect(fields.map((f) => f.name)).toEqual(['Reason', 'Last ping', 'Expected at', 'Last duration']);
    expect(fields[1]!.value).toBe('2026-01-05T08:00:00.000Z');
    expect(fields[2]!.value).toBe('2026-01-05T09:00:00.000Z');

    // A failure while down updates the same alert with its log.
    expect((await ping(`/ping/${c.pingUuid}/fail`, { method: 'POST', body: 'disk full' })).status).toBe(200);
    const again = await alerts(seed.general.id);
    expect(again).toHaveLength(1);
    expect(fieldsOf(again[0]!)).toContainEqual({ name: 'Log', value: 'disk full' });

    // A webhook sender's dedupKey cannot reach the check's alert.
    await node.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'spoof', dedupKey: `heartbeat:${c.id}`, status: 'resolved' } });
    expect((await alerts(seed.general.id))[0]!.status).toBe('open');

    clock.advance(MIN);
    await ping(`/ping/${c.pingUuid}`);
    [alert] = await alerts(seed.general.id);
    expect(alert).toMatchObject({ title: 'Nightly backup is up', level: 'SUCCESS', status: 'resolved' });
    expect(JSON.parse(alert!.resolvedByJson!)).toMatchObject({ name: 'Heartbeat Nightly backup' });
    expect(await alerts(seed.general.id)).toHaveLength(1);
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 0, alertsWritten: 0 });
  });

  it('a fail ping or a non-zero exit status opens the alert at once, with the log tail', async () => {
    const c = await create();
    await ping(`/ping/${c.pingUuid}/3`, { method: 'POST', body: 'pg_dump: connection refused' });
    const [alert] = await alerts(seed.general.id);
    expect(alert).toMatchObject({ title: 'Nightly backup is down', status: 'open' });
    expect(fieldsOf(alert!)).toEqual(
      expect.arrayContaining([
        { name: 'Reason', value: 'the job exited with status 3' },
        { name: 'Log', value: 'pg_dump: connection refused' },
      ]),
    );
  });

  it('a start with no end goes down after the grace ("started, never finished")', async () => {
    const c = await create();
    await ping(`/ping/${c.pingUuid}`);
    clock.advance(5 * MIN);
    await ping(`/ping/${c.pingUuid}/start`);
    clock.advance(10 * MIN);
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 1, alertsWritten: 1 });
    const [alert] = await alerts(seed.general.id);
    expect(fieldsOf(alert!)).toContainEqual({ name: 'Reason', value: 'started, never finished' });
  });

  it('a cron check goes down after its cron time plus the grace', async () => {
    const c = await create({ period: undefined, cron: '0 3 * * *', tz: 'Europe/Berlin', grace: '30m' });
    await ping(`/ping/${c.pingUuid}`); // 09:00 Berlin on 5 Jan: next due 03:00 Berlin on 6 Jan = 02:00 UTC.
    clock.set(Date.UTC(2026, 0, 6, 2, 29));
    expect(await status(c)).toBe('late');
    expect((await node.services.heartbeats.timer.pass()).wentDown).toBe(0);
    clock.set(Date.UTC(2026, 0, 6, 2, 30));
    expect((await node.services.heartbeats.timer.pass()).wentDown).toBe(1);
  });

  it('paused: no alert while paused; a ping resumes it', async () => {
    const c = await create();
    await ping(`/ping/${c.pingUuid}`);
    await checks().pause(c.id);
    clock.advance(10 * HOUR);
    expect(await status(c)).toBe('paused');
    expect((await node.services.heartbeats.timer.pass()).wentDown).toBe(0);
    await ping(`/ping/${c.pingUuid}`);
    expect(await status(c)).toBe('up');
    expect(await alerts(seed.general.id)).toEqual([]);
  });

  it('a ping flood is rate limited per check: UUID pings still 200 OK, slug pings 429, the state kept', async () => {
    const c = await create();
    const key = await checks().pingKey(seed.ws.id);
    const answers = await Promise.all(Array.from({ length: 80 }, () => ping(`/ping/${c.pingUuid}`).then((r) => r.status)));
    expect(new Set(answers)).toEqual(new Set([200]));
    expect((await stored(c)).pingCount).toBe(60);
    expect(await text(await ping(`/ping/${key}/${c.slug}`))).toEqual([429, 'rate limit exceeded']);
    expect(await status(c)).toBe('up');
    clock.advance(MIN);
    expect(await text(await ping(`/ping/${key}/${c.slug}/fail`))).toEqual([200, 'OK']);
    expect((await stored(c)).status).toBe('down');
  });

  it('a rotated ping key: slug URLs with the old one answer 404', async () => {
    const c = await create();
    const old = await checks().pingKey(seed.ws.id);
    const fresh = await checks().rotatePingKey(seed.ws.id);
    expect(fresh).not.toBe(old);
    expect((await ping(`/ping/${old}/${c.slug}`)).status).toBe(404);
    expect((await ping(`/ping/${fresh}/${c.slug}`)).status).toBe(200);
  });

  it('refuses a chat-connected channel (409) and a slug already in the workspace', async () => {
    await node.services.discordLinks.connect(seed.deploys.id, '123456789012345678');
    await expect(create({ channelId: seed.deploys.id })).rejects.toMatchObject({ code: 'channel-is-chat-connected' });
    await create();
    await expect(create({ channelId: seed.secret.id })).rejects.toMatchObject({ code: 'slug-taken' });
  });

  it('GET /api/heartbeats lists the checks of the channels the token sees', async () => {
    const pub = await create();
    await create({ channelId: seed.secret.id, name: 'Secret job' });
    await checks().create({ channelId: seed.otherChannel.id, name: 'Other job', period: '1d', grace: '1h' });
    await ping(`/ping/${pub.pingUuid}`);
    const owner = (await (await node.call('GET', '/api/heartbeats', { token: seed.ownerToken })).json()) as { name: string }[];
    expect(owner.map((x) => x.name)).toEqual(['Nightly backup', 'Secret job']);
    const res = await node.call('GET', '/api/heartbeats', { token: seed.memberToken });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      {
        id: pub.id,
        name: 'Nightly backup',
        slug: 'nightly-backup',
        channelId: seed.general.id,
        status: 'up',
        schedule: { period: 3600 },
        graceSeconds: 600,
        pingUrl: `${node.base}/ping/${pub.pingUuid}`,
        lastPingAt: '2026-01-05T08:00:00.000Z',
        nextDueAt: '2026-01-05T09:00:00.000Z',
        lastDurationMs: null,
      },
    ]);
    expect((await node.call('GET', '/api/heartbeats')).status).toBe(401);
  });

  it('after a restart every overdue check goes down once, and its alert is written once', async () => {
    const a = await create();
    const b = await create({ name: 'Hourly sync' });
    await ping(`/ping/${a.pingUuid}`);
    await ping(`/ping/${b.pingUuid}`);
    // The service is down past both checks' due times.
    await h.stopNodes();
    clock.advance(3 * HOUR);
    node = await h.restart({ overrides: { clock } });
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 2, alertsWritten: 2 });
    node = await h.restart({ overrides: { clock } });
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 0, alertsWritten: 0 });
    expect((await alerts(seed.general.id)).map((x) => x.title).sort()).toEqual(['Hourly sync is down', 'Nightly backup is down']);
    // Back up after the restart: resolved once.
    await ping(`/ping/${a.pingUuid}`);
    node = await h.restart({ overrides: { clock } });
    expect(await node.services.heartbeats.timer.pass()).toEqual({ wentDown: 0, alertsWritten: 0 });
    expect((await alerts(seed.general.id)).map((x) => x.status).sort()).toEqual(['open', 'resolved']);
  });
});
