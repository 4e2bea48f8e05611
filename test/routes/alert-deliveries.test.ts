import { afterEach, describe, expect, it } from 'vitest';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

/** GET /api/alerts/{id}/deliveries over real HTTP: who sees which rows, and masked targets. */
let h: Harness | undefined;
let worker: RouteWorker | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const close of closers.splice(0)) await close();
  await h?.close();
  h = undefined;
});

interface Delivery { kind: string; routeId: string | null; target: string; status: string; attempts: number; lastStatus: number | null; lastError: string | null; lastAttemptAt: string | null }

async function setup() {
  h = await startHarness({ serve: true, env: { ROUTES_ALLOW_PRIVATE: '1' } });
  const seed = await seedWorkspace(h.services);
  const r = await startFakeReceiver();
  closers.push(r.close);
  const deliveries = async (alertId: string, token?: string) => {
    const res = await h!.call('GET', `/api/alerts/${alertId}/deliveries`, token === undefined ? {} : { token });
    return { status: res.status, body: (await res.json()) as { deliveries?: Delivery[] } };
  };
  return { seed, r, deliveries };
}

/** An e-mail delivery row for `userId`, as the outbox's fan-out writes it (the SMTP path is covered by test/notify). */
async function emailRow(alertId: string, channelId: string, userId: string, state: string, attempts: number) {
  await h!.exec(
    `INSERT INTO notification_deliveries (job_id, user_id, channel_id, alert_id, state, attempts, next_attempt_at, last_error, created_at, updated_at)
     VALUES (1, ?, ?, ?, ?, ?, 0, ?, 1000, 2000)`,
    [userId, channelId, alertId, state, attempts, state === 'failed' ? '550 mailbox unavailable' : null],
  );
}

describe('GET /api/alerts/{id}/deliveries', () => {
  it('shows a route delivery with its masked target to every reader; e-mail rows to their recipient and to owners', async () => {
    const { seed, r, deliveries } = await setup();
    const token = (await h!.services.accounts.rotateWebhook(seed.general.id)).webhookToken;
    const { id: routeId } = await h!.services.routes.routes.create(seed.general.id, 'webhook', { url: `${r.url}/hook/s3cr3t-path?key=abc` }, {});
    worker = startRouteWorker(h!.services);
    const { body } = await postAlert(h!, token, { title: 'Disk full', level: 'ERROR' });
    const alertId = body.alertId!;
    await eventually(() => r.received[0], 'the route delivery');
    await emailRow(alertId, seed.general.id, seed.owner.id, 'sent', 1);
    await emailRow(alertId, seed.general.id, seed.member.id, 'failed', 3);

    await eventually(async () => (await deliveries(alertId, seed.memberToken)).body.deliveries?.find((d) => d.kind === 'route')?.status === 'sent', 'sent');
    const asMember = await deliveries(alertId, seed.memberToken);
    expect(asMember.status).toBe(200);
    const route = asMember.body.deliveries!.find((d) => d.kind === 'route')!;
    expect(route).toMatchObject({ routeId, status: 'sent', attempts: 1, lastStatus: 200, lastError: null });
    expect(Date.parse(route.lastAttemptAt!)).not.toBeNaN();
    expect(route.target).not.toContain('s3cr3t-path');
    expect(route.target).not.toContain('key=abc');
    // A member sees their own e-mail row only, masked.
    const memberMail = asMember.body.deliveries!.filter((d) => d.kind === 'email');
    expect(memberMail).toEqual([
      { kind: 'email', routeId: null, target: 'm***@acme.test', status: 'failed', attempts: 3, lastStatus: null, lastError: '550 mailbox unavailable', lastAttemptAt: new Date(2000).toISOString() },
    ]);

    const asOwner = await deliveries(alertId, seed.ownerToken);
    expect(asOwner.body.deliveries!.filter((d) => d.kind === 'email').map((d) => d.target).sort()).toEqual(['m***@acme.test', 'o***@acme.test']);
    expect(asOwner.body.deliveries!.filter((d) => d.kind === 'route')).toHaveLength(1);
  });

  it('answers 404 where the alert is not visible and 401 without a token', async () => {
    const { seed, deliveries } = await setup();
    const secretToken = (await h!.services.accounts.rotateWebhook(seed.secret.id)).webhookToken;
    const { body } = await postAlert(h!, secretToken, { title: 'private' });
    const alertId = body.alertId!;
    expect((await deliveries(alertId, seed.ownerToken)).body).toEqual({ deliveries: [] });
    // A member outside the private channel, a stranger, and an unknown id: the same 404.
    for (const [id, token] of [[alertId, seed.memberToken], [alertId, seed.strangerToken], ['alr_nope', seed.ownerToken]] as const) {
      const res = await deliveries(id, token);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: 404 });
    }
    expect((await deliveries(alertId)).status).toBe(401);
  });
});
