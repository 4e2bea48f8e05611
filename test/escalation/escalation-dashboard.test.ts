import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from '../dashboard/helpers.js';

// The channel settings' Escalation section on the server side (dashboardEngine()): Post/Redirect/Get,
// the error beside its field with nothing stored, owners and admins only.

let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup() {
  h = await startDashboard();
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  const member = new DashClient(h);
  await member.signInWithLink(seed.member.id);
  return { h, seed, owner, member };
}

const FORM = { escalation_level: 'WARNING', escalation_after: '10m', escalation_every: '5m', escalation_times: '2' };
const policies = async (d: DashHarness) =>
  d.query<{ minLevel: string; afterMs: number; thenJson: string | null; updatedBy: string }>(
    'SELECT min_level AS "minLevel", after_ms AS "afterMs", then_json AS "thenJson", updated_by AS "updatedBy" FROM escalation_policies',
  );

describe('escalation in the channel settings', () => {
  it('an owner turns it on (PRG), names who gets the last step, and turns it off', async () => {
    const { h, seed, owner } = await setup();
    const page = await owner.get(`/channels/${seed.general.id}`);
    expect(page.html).toContain('Off: an alert nobody acknowledges is not sent again.');
    const saved = await owner.submit(`/channels/${seed.general.id}/escalation`, { ...FORM, [`escalate_to_${seed.member.id}`]: 'on' });
    expect(saved.posted.status).toBe(303);
    expect(saved.html).toContain('Escalation of “General” saved.');
    expect(saved.html).toContain('Open alerts at WARNING or above are sent again to the channel after 10m, then every 5m, 2 times in all; the last of the 3 steps goes to member@acme.test.');
    expect((await policies(h)).map((p) => ({ ...p, afterMs: Number(p.afterMs) }))).toEqual([
      { minLevel: 'WARNING', afterMs: 600_000, thenJson: JSON.stringify([seed.member.id]), updatedBy: seed.owner.id },
    ]);
    // The reload shows the settings without the flash.
    expect((await owner.get(saved.location!)).html).not.toContain('Escalation of “General” saved.');

    const off = await owner.submit(`/channels/${seed.general.id}/escalation/clear`);
    expect(off.posted.status).toBe(303);
    expect(off.html).toContain('Escalation of “General” turned off.');
    expect(await policies(h)).toEqual([]);
  });

  it('a refused value is shown beside its field, with what was typed, and nothing is stored', async () => {
    const { h, seed, owner } = await setup();
    await owner.get(`/channels/${seed.general.id}`);
    const cases: [Record<string, string>, string, string][] = [
      [{ escalation_after: '10 minutes' }, 'f-escalation_after-error', 'after must be an integer and a unit: 30s, 10m, 2h, 1d'],
      [{ escalation_every: '5s' }, 'f-escalation_every-error', 'every must be from 30s to 30d'],
      [{ escalation_times: '11' }, 'f-escalation_times-error', 'times must be a whole number from 1 to 10'],
      [{ escalation_level: 'LOUD' }, 'f-escalation_level-error', 'the level must be one of'],
    ];
    for (const [change, id, message] of cases) {
      const { res, html } = await owner.post(`/channels/${seed.general.id}/escalation`, { ...FORM, ...change });
      expect(res.status, id).toBe(400);
      expect(html).toMatch(new RegExp(`id="${id}"[^>]*>[^<]*${message}`));
      const typed = Object.values(change)[0]!;
      if (!change.escalation_level) expect(html).toContain(`value="${typed}"`);
    }
    expect(await policies(h)).toEqual([]);
  });

  it('a member sees no section and is refused', async () => {
    const { h, seed, member } = await setup();
    expect((await member.get(`/channels/${seed.general.id}`)).html).not.toContain('escalation-title');
    expect((await member.post(`/channels/${seed.general.id}/escalation`, FORM)).res.status).toBe(403);
    expect((await member.post(`/channels/${seed.general.id}/escalation/clear`, {})).res.status).toBe(403);
    expect(await policies(h)).toEqual([]);
  });
});
