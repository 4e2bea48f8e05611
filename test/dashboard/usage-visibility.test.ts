import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * /usage must not tell a member how busy a private channel they are not in is: a member's totals
 * (this month, per month) cover the channels they can see; owners and admins see the workspace's
 * billable events.
 */
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const thisMonth = (html: string) => /<p class="big-number">(\d+) <span class="muted">([a-z ]+)<\/span><\/p>/.exec(html)!.slice(1).join(' ');
const monthRows = (html: string) => [...html.matchAll(/<td>(\d{4}-\d{2})<\/td><td class="num">(\d+)<\/td>/g)].map((m) => `${m[1]}: ${m[2]}`);

describe('usage totals by what the viewer can see', () => {
  it('a member is not counted the alerts of a private channel they are not in; owners and admins see the workspace', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 20, 12));
    h = await startDashboard({ serve: false, overrides: { clock } });
    const seed = await seedWorkspace(h.services);
    const admin = await h.services.accounts.createUser('admin@acme.test', 'Ada Admin');
    await h.services.accounts.addMember(seed.ws.id, admin.id, 'admin');
    const post = async (token: string, title: string) => {
      const res = await h!.app.request(`/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
      expect(res.status).toBe(201);
    };
    clock.set(Date.UTC(2026, 9, 10, 12));
    await post(seed.secret.webhookToken, 'october breach');
    await post(seed.general.webhookToken, 'october hello');
    clock.set(Date.UTC(2026, 10, 18, 9));
    await post(seed.general.webhookToken, 'a');
    for (const t of ['breach 1', 'breach 2', 'breach 3']) await post(seed.secret.webhookToken, t);
    clock.set(Date.UTC(2026, 10, 20, 12));

    const view = async (userId: string) => {
      const c = new DashClient(h!);
      await c.signInWithLink(userId);
      const res = await c.get('/usage');
      expect(res.res.status).toBe(200);
      return res.html;
    };
    const member = await view(seed.member.id);
    expect(thisMonth(member)).toBe('1 alert');
    expect(monthRows(member)).toEqual(['2026-11: 1', '2026-10: 1']);
    expect(member).not.toContain('Security');

    for (const manager of [seed.owner.id, admin.id]) {
      const html = await view(manager);
      expect(thisMonth(html)).toBe('4 alerts');
      expect(monthRows(html)).toEqual(['2026-11: 4', '2026-10: 2']);
    }

    // Once in the private channel, the member's totals include it.
    await h.services.accounts.addChannelMember(seed.secret.id, seed.member.id);
    const joined = await view(seed.member.id);
    expect(thisMonth(joined)).toBe('4 alerts');
    expect(monthRows(joined)).toEqual(['2026-11: 4', '2026-10: 2']);
  });
});
