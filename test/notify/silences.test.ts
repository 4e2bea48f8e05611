import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SilenceRequest } from '../../src/domain/silences.js';
import type { PushWorker } from '../../src/notify/push/push-worker.js';
import { bodyOf } from '../helpers/bodies.js';
import { postAlert } from '../helpers/harness.js';
import { FakePushService } from '../helpers/push-service.js';
import { adminJson, startClocked, stopClocked, type ClockedEnv } from './clocked.js';
import { rows } from './setup.js';

// Silences over real HTTP on testEngine(): the webhook stores the alert, the fan-out mutes it for
// e-mail (SMTP sink) and Web Push (a local push service) alike, and the API shows `silencedBy`.

// Saturday 2026-03-28 12:00 UTC; Berlin changes to summer time on Sunday 2026-03-29 at 02:00 (01:00 UTC).
const SATURDAY_NOON = Date.UTC(2026, 2, 28, 12);

let svc: FakePushService;
beforeAll(async () => {
  svc = await FakePushService.start();
});
afterAll(() => svc.close());

type Env = ClockedEnv & { push: PushWorker };
let t: Env | undefined;
afterEach(async () => {
  if (t) await stopClocked(t);
  t = undefined;
});

async function start(): Promise<Env> {
  const env = await startClocked(svc, SATURDAY_NOON, { push: true });
  t = { ...env, push: env.push! };
  return t;
}

async function post(e: Env, channel: { webhookToken: string }, payload: unknown): Promise<string> {
  const { res, body } = await postAlert(e.h, channel.webhookToken, payload);
  expect(res.status).toBe(201);
  return (body as { alertId: string }).alertId;
}

/** Every job fanned out and every e-mail and push sent. */
async function settle(e: Env): Promise<void> {
  await e.notifier.whenIdle();
  await e.push.whenIdle();
}

const admin = adminJson;

/** Created through the service's own use case (the CLI runs on the system clock; these tests move the service's). */
async function silence(e: Env, request: Omit<SilenceRequest, 'workspaceId' | 'actor'>): Promise<string> {
  return (await e.h.services.silences.create({ workspaceId: e.seed.ws.id, actor: 'owner@acme.test', ...request })).id;
}

async function alertJson(e: Env, id: string) {
  return bodyOf.alert(await e.h.call('GET', `/api/alerts/${id}`, { token: e.seed.ownerToken }));
}

describe('a silenced alert is stored, counted and visible, and notifies nobody', () => {
  it('no e-mail and no push for what a channel silence matches; the rest go out', async () => {
    const e = await start();
    const id = await silence(e, { channel: e.seed.general.id, level: 'error', for: '2h', comment: 'DB migration tonight' });
    const muted = await post(e, e.seed.general, { title: 'Replica lag', level: 'error' });
    const heard = await post(e, e.seed.general, { title: 'Disk at 80%', level: 'warning' });
    const otherChannel = await post(e, e.seed.deploys, { title: 'Deploy failed', level: 'error' });
    await e.sink.waitFor(4);
    await settle(e);

    expect(e.sink.messages.map((m) => m.subject).sort()).toEqual([
      '[ERROR] #deploys — Deploy failed', '[ERROR] #deploys — Deploy failed', '[WARNING] #general — Disk at 80%', '[WARNING] #general — Disk at 80%',
    ]);
    const pushed = await rows<{ alertId: string }>(e.h, 'SELECT alert_id AS "alertId" FROM push_deliveries ORDER BY alert_id');
    expect(pushed.map((p) => p.alertId).sort()).toEqual([heard, otherChannel].sort());
    expect(await rows(e.h, 'SELECT count(*) AS n FROM notification_deliveries WHERE alert_id = ?', muted)).toEqual([{ n: 0 }]);
    expect(await rows(e.h, 'SELECT last_error AS note FROM notification_jobs WHERE alert_id = ?', muted)).toEqual([{ note: `silenced by ${id}` }]);

    expect((await alertJson(e, muted)).silencedBy).toEqual({ id, comment: 'DB migration tonight' });
    expect((await alertJson(e, heard)).silencedBy).toBeNull();
    const page = await bodyOf.page(await e.h.call('GET', `/api/channels/${e.seed.general.id}/alerts`, { token: e.seed.memberToken }));
    expect(page.alerts.map((a) => [a.title, a.silencedBy?.id ?? null])).toEqual([['Disk at 80%', null], ['Replica lag', id]]);
    const channels = await bodyOf.channels(await e.h.call('GET', '/api/channels', { token: e.seed.memberToken }));
    expect(channels.find((c) => c.id === e.seed.general.id)?._count.alerts).toBe(2);
  });

  it('a workspace silence matches on source, title substring and every field pair', async () => {
    const e = await start();
    await silence(e, {
      source: 'nightly-backup', titleContains: 'TIMEOUT', fields: ['region=eu-1', 'tier=db'],
      until: new Date(SATURDAY_NOON + 3_600_000).toISOString(), comment: 'backup window',
    });
    const fields = [{ label: 'region', value: 'eu-1' }, { label: 'tier', value: 'db' }, { label: 'extra', value: 'x' }];
    await post(e, e.seed.deploys, { title: 'Backup timeout on db-2', source: 'nightly-backup', fields });
    await post(e, e.seed.general, { title: 'Backup timeout on db-3', source: 'nightly-backup', fields: fields.slice(0, 1) });
    await post(e, e.seed.general, { title: 'Backup slow', source: 'nightly-backup', fields });
    await post(e, e.seed.general, { title: 'Backup timeout on db-4', source: 'other', fields });
    await e.sink.waitFor(6);
    await settle(e);
    const subjects = [...new Set(e.sink.messages.map((m) => m.subject))].sort();
    expect(subjects).toEqual(['[INFO] #general — Backup slow', '[INFO] #general — Backup timeout on db-3', '[INFO] #general — Backup timeout on db-4']);
  });

  it('expiring a silence early lets the next alert notify again', async () => {
    const e = await start();
    const id = await silence(e, { for: '1d', comment: 'all quiet' });
    await post(e, e.seed.general, { title: 'first' });
    await settle(e);
    expect(e.sink.messages).toHaveLength(0);
    const expired = await e.h.services.silences.expire(id, 'owner@acme.test');
    expect(expired.expiredAt).toBe(SATURDAY_NOON);
    await post(e, e.seed.general, { title: 'second' });
    await e.sink.waitFor(2);
    await settle(e);
    expect([...new Set(e.sink.messages.map((m) => m.subject))]).toEqual(['[INFO] #general — second']);
  });
});

describe('weekly maintenance windows in a time zone', () => {
  it("'Sun 01:00-04:00 Europe/Berlin' holds by the wall clock across the change to summer time", async () => {
    const e = await start();
    await silence(e, { weekly: 'Sun 01:00-04:00', timeZone: 'Europe/Berlin', comment: 'patch Sunday' });
    // Saturday noon: outside.
    await post(e, e.seed.general, { title: 'saturday' });
    // 00:30 UTC is 01:30 in Berlin (winter time): inside.
    e.clock.set(Date.UTC(2026, 2, 29, 0, 30));
    await post(e, e.seed.general, { title: 'inside' });
    // 02:30 UTC is 04:30 in Berlin (summer time since 01:00 UTC): outside, although a fixed +1 h would say 03:30.
    e.clock.set(Date.UTC(2026, 2, 29, 2, 30));
    await post(e, e.seed.general, { title: 'after' });
    await e.sink.waitFor(4);
    await settle(e);
    expect([...new Set(e.sink.messages.map((m) => m.subject))].sort()).toEqual(['[INFO] #general — after', '[INFO] #general — saturday']);
  });
});

describe('silence commands', () => {
  it('list shows state and matchers; a member may not create one; bad input is a usage error that stores nothing', async () => {
    const e = await start();
    const created = await admin(e, 'silence', 'create', '--channel', 'general', '--for', '30m', '--comment', 'deploy', '--as', 'owner@acme.test');
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const id = created.json!.id as string;
    const list = await admin(e, 'silence', 'list', '--workspace', e.seed.ws.id);
    expect(list.json).toMatchObject({ workspaceId: e.seed.ws.id, silences: [{ id, channelId: e.seed.general.id, state: 'active', comment: 'deploy', weekly: null }] });

    const member = await admin(e, 'silence', 'create', '--workspace', e.seed.ws.id, '--for', '1h', '--comment', 'x', '--as', 'member@acme.test');
    expect(member).toMatchObject({ code: 1 });
    expect(member.stderr).toContain('not an owner or admin');
    const stranger = await admin(e, 'silence', 'create', '--workspace', e.seed.ws.id, '--for', '1h', '--comment', 'x', '--as', 'stranger@other.test');
    expect(stranger).toMatchObject({ code: 1 });
    for (const bad of [
      ['--workspace', e.seed.ws.id, '--weekly', 'Sat 02:00-04:00', '--tz', 'Mars/Olympus', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--weekly', 'Caturday 02:00-04:00', '--tz', 'UTC', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--for', '10y', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--until', '2020-01-01T00:00:00Z', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--for', '1h', '--comment', '   '],
      ['--workspace', e.seed.ws.id, '--for', '1h', '--field', 'novalue', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--for', '1h', '--level', 'loud', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--channel', 'general', '--for', '1h', '--comment', 'x'],
      ['--workspace', e.seed.ws.id, '--for', '1h', '--until', '2030-01-01T00:00:00Z', '--comment', 'x'],
    ]) {
      const r = await admin(e, 'silence', 'create', ...bad, '--as', 'owner@acme.test');
      expect(r.code, `${bad.join(' ')}: ${r.stderr}`).toBe(2);
    }
    expect(await rows(e.h, 'SELECT count(*) AS n FROM silences')).toEqual([{ n: 1 }]);
    expect(await admin(e, 'silence', 'expire', '--id', 'sil_nope')).toMatchObject({ code: 1 });
    const expired = await admin(e, 'silence', 'expire', '--id', id);
    expect(expired.json).toMatchObject({ id, state: 'expired' });
    const weekly = await admin(e, 'silence', 'create', '--workspace', e.seed.ws.id, '--weekly', 'sat 02:00-04:00', '--tz', 'europe/berlin',
      '--field', 'env=prod', '--comment', 'patching', '--as', 'owner@acme.test');
    expect(weekly.json).toMatchObject({ weekly: 'Sat 02:00-04:00', timeZone: 'Europe/Berlin', endsAt: null, fields: [{ label: 'env', value: 'prod' }] });
  });
});
