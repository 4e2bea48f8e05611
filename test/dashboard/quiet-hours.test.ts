import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/** Quiet hours on Profile, server-side (both engines): Post/Redirect/Get with a flash, errors next to their field, nothing stored on a refusal. */
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('Profile → Quiet hours', () => {
  it('saves with a flash after a redirect, refuses a bad zone next to its field, and turns off', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const c = new DashClient(h);
    await c.signInWithLink(seed.member.id);
    const profile = await c.get('/profile');
    expect(profile.html).toContain('Off: every alert notifies you as it arrives.');

    const saved = await c.submit('/profile/quiet-hours', { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', minLevel: 'warning' });
    expect(saved.posted.status).toBe(303);
    expect(saved.location).toMatch(/^\/profile\?flash=[^#]+#quiet-hours$/);
    expect(saved.html).toContain('Quiet hours saved.');
    expect(saved.html).toContain('(Europe/Berlin), only warnings and errors reach you.');
    expect(await h.services.quietHours.get(seed.member.id)).toEqual({ timeZone: 'Europe/Berlin', startMinute: 1320, endMinute: 420, minLevel: 'WARNING' });
    // A reload shows the page, not the flash again.
    expect((await c.get(saved.location!.replace(/#.*/, ''))).html).not.toContain('Quiet hours saved.');

    const refused = await c.post('/profile/quiet-hours', { start: '23:00', end: '06:00', timeZone: 'Mars/Olympus', minLevel: 'error' });
    expect(refused.res.status).toBe(400);
    expect(refused.html).toMatch(/id="f-quiet-timeZone"[^>]*aria-invalid="true"[^>]*aria-describedby="f-quiet-timeZone-hint f-quiet-timeZone-error"/);
    expect(refused.html).toContain('<p class="error" id="f-quiet-timeZone-error">time zone must be an IANA name such as Europe/Berlin or UTC</p>');
    expect(refused.html).toContain('value="Mars/Olympus"');
    expect((await h.services.quietHours.get(seed.member.id))?.startMinute).toBe(1320);

    const same = await c.post('/profile/quiet-hours', { start: '07:00', end: '07:00', timeZone: 'UTC', minLevel: 'error' });
    expect(same.res.status).toBe(400);
    expect(same.html).toContain('id="f-quiet-end-error"');
    const level = await c.post('/profile/quiet-hours', { start: '22:00', end: '07:00', timeZone: 'UTC', minLevel: 'loud' });
    expect(level.html).toContain('id="f-quiet-minLevel-error"');

    const off = await c.submit('/profile/quiet-hours/clear');
    expect(off.html).toContain('Quiet hours are off.');
    expect(await h.services.quietHours.get(seed.member.id)).toBeNull();
  });

  it('refuses a post without the CSRF token', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const c = new DashClient(h);
    await c.signInWithLink(seed.member.id);
    const res = await c.post('/profile/quiet-hours', { start: '22:00', end: '07:00', timeZone: 'UTC' }, { csrf: null });
    expect(res.res.status).toBe(403);
    expect(await h.services.quietHours.get(seed.member.id)).toBeNull();
  });
});
