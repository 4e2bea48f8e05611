import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { tomorrowAtNine } from '../../src/domain/snooze.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** The feed's lifecycle buttons and status filter, server side over real HTTP: forms, htmx swaps, the remembered filter. */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const T0 = Date.UTC(2026, 2, 2, 22, 30);
const clock = new ManualClock(T0);

beforeAll(async () => {
  h = await startDashboard({ overrides: { clock } });
  seed = await seedWorkspace(h.services);
});
afterAll(async () => {
  await h?.close();
});

async function post(title: string): Promise<string> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { alertId: string }).alertId;
}

const statusOf = async (id: string) => (await h.query<{ status: string; snoozed_until: number | null }>('SELECT status, snoozed_until FROM alerts WHERE id = ?', [id]))[0]!;

describe('feed lifecycle buttons', () => {
  it('acknowledge, snooze until tomorrow 9:00 in the browser zone, resolve and reopen: each a form post recorded "via dashboard"', async () => {
    const id = await post('Disk full');
    const member = new DashClient(h);
    await member.signInWithLink(seed.member.id);
    const feed = await member.get('/feed');
    expect(feed.html).toContain(`action="/feed/status/${id}"`);
    expect(feed.html).toContain('aria-keyshortcuts="a"');

    // Without htmx: Post/Redirect/Get back to the feed.
    const ack = await member.post(`/feed/status/${id}`, { action: 'acknowledge', back: '/feed' });
    expect(ack.res.status).toBe(303);
    expect(ack.res.headers.get('location')).toBe('/feed');
    expect((await statusOf(id)).status).toBe('acknowledged');
    expect((await member.get('/feed')).html).toContain('Acknowledged by Max Member');

    // With htmx: the card comes back in place, showing the snooze.
    const snooze = await member.post(`/feed/status/${id}`, { action: 'snooze:tomorrow', tz: 'Europe/Berlin' }, { headers: { 'hx-request': 'true' } });
    expect(snooze.res.status).toBe(200);
    expect(snooze.html).toContain(`data-alert-id="${id}"`);
    expect(snooze.html).toContain('Snoozed, ends');
    // 22:30 UTC is 23:30 in Berlin: tomorrow there is 3 March, 9:00 CET = 08:00 UTC.
    expect(Number((await statusOf(id)).snoozed_until)).toBe(Date.UTC(2026, 2, 3, 8, 0));
    expect(tomorrowAtNine(T0, 'Europe/Berlin')).toBe(Date.UTC(2026, 2, 3, 8, 0));

    await member.post(`/feed/status/${id}`, { action: 'resolve' });
    expect((await statusOf(id)).status).toBe('resolved');
    await member.post(`/feed/status/${id}`, { action: 'reopen' });
    expect((await statusOf(id)).status).toBe('open');
    const vias = await h.query<{ action: string; via: string; actor_name: string }>('SELECT action, via, actor_name FROM alert_history WHERE alert_id = ? ORDER BY id', [id]);
    expect(vias.map((r) => `${r.action}/${r.via}/${r.actor_name}`)).toEqual([
      'acknowledged/dashboard/Max Member',
      'snoozed/dashboard/Max Member',
      'resolved/dashboard/Max Member',
      'reopened/dashboard/Max Member',
    ]);
  });

  it('refuses an unknown action, a missing CSRF token and an alert the person cannot see, changing nothing', async () => {
    const id = await post('Queue stuck');
    const member = new DashClient(h);
    await member.signInWithLink(seed.member.id);
    await member.get('/feed');
    expect((await member.post(`/feed/status/${id}`, { action: 'explode' })).res.status).toBe(400);
    expect((await member.post(`/feed/status/${id}`, { action: 'resolve' }, { csrf: null })).res.status).toBe(403);
    const secret = await fetch(`${h.config.publicUrl}/api/webhook/${seed.secret.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"private"}' });
    const secretId = ((await secret.json()) as { alertId: string }).alertId;
    expect((await member.post(`/feed/status/${secretId}`, { action: 'resolve' })).res.status).toBe(404);
    expect((await statusOf(id)).status).toBe('open');
    expect((await statusOf(secretId)).status).toBe('open');
  });
});

describe('feed status filter', () => {
  it('filters by status and remembers the choice per person; the default shows every status', async () => {
    const open = await post('Filter open');
    const resolved = await post('Filter resolved');
    await h.services.store.lifecycle.change(resolved, (c) => ({ next: { ...c, status: 'resolved' }, history: [] }), clock.now());
    const owner = new DashClient(h);
    await owner.signInWithLink(seed.owner.id);
    const all = await owner.get('/feed');
    expect(all.html).toContain(`data-alert-id="${open}"`);
    expect(all.html).toContain(`data-alert-id="${resolved}"`);

    const onlyResolved = await owner.get('/feed?status=resolved');
    expect(onlyResolved.html).not.toContain(`data-alert-id="${open}"`);
    expect(onlyResolved.html).toContain(`data-alert-id="${resolved}"`);
    // Remembered: the plain feed keeps the filter for this person, not for another.
    const again = await owner.get('/feed');
    expect(again.html).not.toContain(`data-alert-id="${open}"`);
    expect(again.html).toMatch(/<option value="resolved" selected/);
    const member = new DashClient(h);
    await member.signInWithLink(seed.member.id);
    expect((await member.get('/feed')).html).toContain(`data-alert-id="${open}"`);

    await owner.get('/feed?status=all');
    expect((await owner.get('/feed')).html).toContain(`data-alert-id="${open}"`);
    expect((await owner.get('/feed?status=bogus')).res.status).toBe(400);
  });
});
