import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('channel deletion', () => {
  it('deletes the channel and its alerts through the alert store; other channels keep theirs', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const post = (token: string, title: string) =>
      h!.app.request(`/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
    expect((await post(seed.general.webhookToken, 'disk full')).status).toBe(201);
    expect((await post(seed.deploys.webhookToken, 'deployed')).status).toBe(201);
    const owner = new DashClient(h);
    await owner.signInWithLink(seed.owner.id);

    const res = await owner.post(`/channels/${seed.general.id}/delete`, { confirm_name: 'General' });
    expect(res.res.status).toBe(303);
    expect(res.res.headers.get('location')).toMatch(/^\/channels\?flash=/);
    expect((await owner.get(`/channels/${seed.general.id}`)).res.status).toBe(404);
    const counts = await h.services.store.reports.alertsPerChannel();
    expect(counts.get(seed.general.id)).toBeUndefined();
    expect(counts.get(seed.deploys.id)).toBe(1);
  });
});
