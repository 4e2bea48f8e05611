import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('usage page', () => {
  it('shows this month’s alerts (the billable counter) and draws alerts per day per visible channel over 30 days', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    h = await startDashboard({ serve: false, overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    const post = async (token: string, title: string) => {
      const res = await h!.app.request(`/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
      expect(res.status).toBe(201);
    };
    clock.set(Date.UTC(2026, 9, 1, 12)); // 50 days before the view: outside the chart, in October's count
    await post(seed.general.webhookToken, 'old');
    clock.set(Date.UTC(2026, 10, 18, 9));
    await post(seed.general.webhookToken, 'a');
    await post(seed.general.webhookToken, 'b');
    await post(seed.deploys.webhookToken, 'c');
    await post(seed.secret.webhookToken, 'private one');
    clock.set(Date.UTC(2026, 10, 20, 12));

    const member = new DashClient(h);
    await member.signInWithLink(seed.member.id);
    const page = (await member.get('/usage')).html;
    // A member's totals cover the channels they can see (the private one's alert is left out: test/dashboard/usage-visibility.test.ts).
    expect(page).toContain('<p class="big-number">3 <span class="muted">alerts</span></p>');
    expect(page).toContain('<title>2026-11-18 · General: 2</title>');
    expect(page).toContain('<title>2026-11-18 · Deploys: 1</title>');
    // The member cannot see the private channel: its activity is not drawn.
    expect(page).not.toContain('Security');
    expect(page).not.toContain('2026-10-01');
    expect(page).toMatch(/<td>2026-10<\/td><td class="num">1<\/td>/);
    // 30 day slots, the last one today.
    // Day labels in HTML under the chart (legible at phone width), every 7 days back from today.
    expect(page).toContain('<li>11-20</li>');
    expect(page).toContain('<li>10-23</li>');
    expect(page.match(/<rect /g)).toHaveLength(2);
  });
});
