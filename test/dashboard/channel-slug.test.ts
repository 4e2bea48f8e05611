import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

// The channel-slug rule lives once (src/domain/channel-slug.ts): the dashboard's form and the
// use case the CLI goes through give the same answers.
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the new-channel form applies the one slug rule', () => {
  it('refuses a slug the rule refuses, next to the field, stores nothing, and derives one when left empty', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const owner = new DashClient(h);
    await owner.signInWithLink(seed.owner.id);

    for (const slug of ['Ops Alerts', '-ops', 'ops-', 'x'.repeat(65)]) {
      const refused = await owner.post('/channels', { name: 'Ops', slug });
      expect(refused.res.status).toBe(400);
      expect(refused.html).toContain('Lower-case letters, digits and dashes (leave empty to derive it from the name)');
    }
    expect(await h.query("SELECT count(*) AS count FROM channels WHERE name = 'Ops'")).toEqual([{ count: 0 }]);

    expect((await owner.post('/channels', { name: 'Ops', slug: 'o'.repeat(64) })).res.status).toBe(303);
    expect((await owner.post('/channels', { name: 'Café Déploiements', slug: '' })).res.status).toBe(303);
    expect(await h.query("SELECT slug FROM channels WHERE name IN ('Ops', 'Café Déploiements') ORDER BY slug")).toEqual([
      { slug: 'cafe-deploiements' },
      { slug: 'o'.repeat(64) },
    ]);
  });
});
