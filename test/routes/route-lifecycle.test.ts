import { afterEach, describe, expect, it } from 'vitest';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

/** Status changes and silences reach outbound routes: a person's ack/resolve, a sender's dedupKey resolve, a silence's skip. */
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

async function setup() {
  h = await startHarness({ serve: true, env: { ROUTES_ALLOW_PRIVATE: '1' } });
  const seed = await seedWorkspace(h.services);
  const token = (await h.services.accounts.rotateWebhook(seed.general.id)).webhookToken;
  const r = await startFakeReceiver();
  closers.push(r.close);
  await h.services.routes.routes.create(seed.general.id, 'webhook', { url: r.url }, { events: ['alert.opened', 'alert.acknowledged', 'alert.resolved'] });
  worker = startRouteWorker(h.services);
  const events = () => r.received.map((q) => [q.json().event, q.json().status]);
  return { seed, token, r, events };
}

const rows = () => h!.query<{ event: string; state: string; last_error: string | null }>('SELECT event, state, last_error FROM route_deliveries ORDER BY id');

describe('lifecycle changes reach routes', () => {
  it('a person acknowledges then resolves: the route receives opened, acknowledged, resolved in order', async () => {
    const { seed, token, events } = await setup();
    const { body } = await postAlert(h!, token, { title: 'Checkout 500s', level: 'ERROR' });
    await eventually(() => events().length === 1, 'opened');
    const patch = (status: string) => h!.call('PATCH', `/api/alerts/${body.alertId}`, { token: seed.memberToken, json: { status } });
    expect((await patch('acknowledged')).status).toBe(200);
    expect((await patch('resolved')).status).toBe(200);
    await eventually(() => events().length === 3, 'all three events');
    expect(events()).toEqual([['alert.opened', 'open'], ['alert.acknowledged', 'acknowledged'], ['alert.resolved', 'resolved']]);
  });

  it("a sender's dedupKey resolve is alert.resolved; a plain dedupKey update is alert.updated (not queued for this route)", async () => {
    const { token, events } = await setup();
    await postAlert(h!, token, { title: 'db down', dedupKey: 'db-1' });
    await postAlert(h!, token, { title: 'db still down', dedupKey: 'db-1' });
    await postAlert(h!, token, { title: 'db back', dedupKey: 'db-1', status: 'resolved' });
    await eventually(async () => (await rows()).length === 2 && (await rows()).every((d) => d.state === 'sent'), 'both sent');
    // The route's events leave alert.updated out: the plain update queued nothing.
    expect((await rows()).map((d) => [d.event, d.state])).toEqual([['alert.opened', 'sent'], ['alert.resolved', 'sent']]);
    expect(events().map((e) => e[0])).toEqual(['alert.opened', 'alert.resolved']);
  });
});

describe('silences reach routes', () => {
  it("a silenced alert's route delivery is recorded skipped with the silence's id; others are sent", async () => {
    const { seed, token, events } = await setup();
    const silence = await h!.services.silences.create({ workspaceId: seed.ws.id, titleContains: 'noisy', for: '1h', comment: 'maintenance', actor: seed.owner.id });
    await postAlert(h!, token, { title: 'noisy disk check' });
    await postAlert(h!, token, { title: 'real outage' });
    await eventually(async () => (await rows()).length === 2 && (await rows()).every((d) => d.state !== 'pending' && d.state !== 'sending'), 'both decided');
    expect((await rows()).map((d) => [d.state, d.last_error])).toEqual([['skipped', `silenced by ${silence.id}`], ['sent', null]]);
    expect(events()).toEqual([['alert.opened', 'open']]);
  });
});
