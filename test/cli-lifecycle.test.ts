import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../src/cli/admin.js';
import { bodyOf } from './helpers/bodies.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from './helpers/harness.js';

/** `alert ack|resolve|reopen|snooze --as EMAIL` on the file's engine, read back through the API. */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const cli = (args: string[]) => runAdmin(args, { DATA_DIR: h!.dir, LOG_LEVEL: 'silent', ...(h!.config.databaseUrl ? { DATABASE_URL: h!.config.databaseUrl } : {}) });

describe('admin alert ack|resolve|reopen|snooze', () => {
  it('acts as the named member, recorded "via cli"; --id works as for alert delete', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const { body } = await postAlert(h, seed.general.webhookToken, { title: 'Backups late' });
    const alertId = (body as { alertId: string }).alertId;
    const read = async () => bodyOf.alert(await h!.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));

    const ack = await cli(['alert', 'ack', '--alert', alertId, '--as', 'member@acme.test']);
    expect(ack.stderr).toBe('');
    expect(JSON.parse(ack.stdout)).toMatchObject({ id: alertId, changed: true, as: { id: seed.member.id, name: 'Max Member' }, last: { action: 'acknowledged' } });
    expect(await read()).toMatchObject({ status: 'acknowledged', acknowledgedBy: { id: seed.member.id, name: 'Max Member' } });

    const snooze = await cli(['alert', 'snooze', '--id', alertId, '--as', 'member@acme.test', '--for', '2h']);
    expect(JSON.parse(snooze.stdout)).toMatchObject({ changed: true, last: { action: 'snoozed' } });
    const until = Date.parse((await read()).snoozedUntil!);
    expect(Math.abs(until - (Date.now() + 2 * 3_600_000))).toBeLessThan(60_000);

    expect(JSON.parse((await cli(['alert', 'resolve', '--alert', alertId, '--as', 'owner@acme.test'])).stdout)).toMatchObject({ changed: true });
    expect((await read()).resolvedBy).toEqual({ id: seed.owner.id, name: 'Olive Owner' });
    expect(JSON.parse((await cli(['alert', 'reopen', '--alert', alertId, '--as', 'owner@acme.test'])).stdout)).toMatchObject({ last: { action: 'reopened' } });
    const rows = await h.query<{ via: string }>('SELECT via FROM alert_history WHERE alert_id = ?', [alertId]);
    expect(rows.map((r) => r.via)).toEqual(['cli', 'cli', 'cli', 'cli']);
  });

  it('refuses a stranger, a private alert, bad durations and a missing alert: nothing changes', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const secretId = ((await postAlert(h, seed.secret.webhookToken, { title: 'private' })).body as { alertId: string }).alertId;
    const stranger = await cli(['alert', 'ack', '--alert', secretId, '--as', 'stranger@other.test']);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/alert not found/);
    expect((await cli(['alert', 'ack', '--alert', secretId, '--as', 'member@acme.test'])).code).toBe(1);
    expect((await cli(['alert', 'ack', '--alert', secretId, '--as', 'nobody@acme.test'])).code).toBe(1);
    expect((await cli(['alert', 'snooze', '--alert', secretId, '--as', 'owner@acme.test', '--for', '2 hours'])).code).toBe(2);
    expect((await cli(['alert', 'snooze', '--alert', secretId, '--as', 'owner@acme.test'])).code).toBe(2);
    expect((await cli(['alert', 'snooze', '--alert', secretId, '--as', 'owner@acme.test', '--until', '2000-01-01T00:00:00Z'])).code).not.toBe(0);
    expect((await cli(['alert', 'resolve', '--as', 'owner@acme.test'])).code).toBe(2);
    expect(await h.count('alert_history')).toBe(0);
  });
});
