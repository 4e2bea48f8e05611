import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, postAlert, seedWorkspace, type Harness } from './helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

describe('smoke', () => {
  it('creates and reads an alert', async () => {
    h = createHarness();
    const seed = seedWorkspace(h.services);
    const { res, body } = await postAlert(h, seed.general.webhookToken, { title: 'Hello', level: 'error', emoji: ':rocket:' });
    expect(res.status).toBe(201);
    const list = await h.call('GET', `/api/channels/${seed.general.slug}/alerts`, { token: seed.ownerToken });
    const page = (await list.json()) as any;
    expect(list.status).toBe(200);
    expect(page.alerts[0]).toMatchObject({ id: body.alertId, title: 'Hello', level: 'ERROR', emoji: '🚀', isRead: false });
    const channels = (await (await h.call('GET', '/api/channels', { token: seed.ownerToken })).json()) as any[];
    expect(channels.find((c) => c.id === seed.general.id)._count.alerts).toBe(1);
  });
});
