import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, startDashboard, type DashHarness } from './helpers.js';

/**
 * The dashboard in a real Chromium: what a person does, found by role and
 * accessible name; every screen scanned by axe and photographed (desktop and
 * phone, light and dark) into a temp dir.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

async function signIn(page: Page, userId: string) {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  // Signing in lands on the feed; these tests are about the settings pages.
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Channels' }).click();
  await page.getByRole('heading', { name: 'Channels', level: 1 }).waitFor();
}

async function check(page: Page, name: string) {
  expect(await axeViolations(page)).toEqual([]);
  expect(cspViolations(page)).toEqual([]);
  await screenshots(page, name);
}

describe('dashboard in Chromium', () => {
  // Three pages checked with axe and photographed in four forms each: well past the default 30 s on a loaded machine.
  it('signs in with a link, creates a channel, copies its webhook URL and receives an alert posted to it', { timeout: 90_000 }, async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${h.config.publicUrl}/channels`);
    await page.getByRole('heading', { name: 'Sign in to Alertbridge' }).waitFor();
    await check(page, 'sign-in');
    await signIn(page, seed.owner.id);

    await page.getByLabel('Name', { exact: true }).fill('Payments');
    await page.getByLabel('Icon (emoji)').fill('💳');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('heading', { name: /Payments/, level: 1 }).waitFor();
    expect(await page.getByText('/api/webhook/whk_••••').isVisible()).toBe(true);
    await page.getByRole('link', { name: 'Reveal webhook URL' }).click();
    await page.getByRole('button', { name: 'Copy webhook URL' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toMatch(new RegExp(`^${h.config.publicUrl}/api/webhook/whk_[A-Za-z0-9_-]{32}$`));
    await check(page, 'channel-settings');

    const posted = await fetch(copied, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Card declined', level: 'ERROR' }) });
    expect(posted.status).toBe(201);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('link', { name: /Payments.*1 alert$/ }).waitFor();
    await check(page, 'channels');

    // Rotating needs a confirmation; the old URL is a 404 at once.
    await page.getByRole('link', { name: /Payments/ }).click();
    await page.getByRole('button', { name: 'Rotate webhook URL' }).click();
    await page.getByText('Tick the box to confirm').waitFor();
    await page.getByLabel('I understand the current URL stops working at once').check();
    await page.getByRole('button', { name: 'Rotate webhook URL' }).click();
    await page.getByText('Webhook URL of “Payments” rotated').waitFor();
    // Post/Redirect/Get: the browser is on the settings page, not on the POST's address.
    expect(new URL(page.url()).pathname).toBe(`/channels/${new URL(page.url()).pathname.split('/')[2]}`);
    const old = await fetch(copied, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x' }) });
    expect(old.status).toBe(404);
    await context.close();
  });

  it('creates a token shown once with a curl line, which the API accepts until it is revoked', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Token name').fill('CI deploy script');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token “CI deploy script” created' }).waitFor();
    const token = await page.getByLabel('Token', { exact: true }).inputValue();
    expect(await page.getByLabel('Try it with curl').inputValue()).toBe(`curl -H "Authorization: Bearer ${token}" ${h.config.publicUrl}/api/channels`);
    await check(page, 'tokens');

    const api = () => fetch(`${h.config.publicUrl}/api/channels`, { headers: { authorization: `Bearer ${token}` } });
    expect((await api()).status).toBe(200);
    await page.getByRole('link', { name: 'API tokens' }).click();
    // Shown once: the list has only the last four characters.
    expect(await page.content()).not.toContain(token);
    await page.getByRole('row', { name: /CI deploy script/ }).getByText(`…${token.slice(-4)}`).waitFor();
    await page.getByRole('button', { name: 'Revoke token CI deploy script' }).click();
    // Asked first, naming the token; the message after names it too.
    await page.getByRole('dialog', { name: 'Revoke token “CI deploy script”?' }).getByRole('button', { name: 'Revoke token' }).click();
    await page.getByText('Token “CI deploy script” revoked.').waitFor();
    const after = await api();
    expect(after.status).toBe(401);
    expect(((await after.json()) as { reason: string }).reason).toBe('unknown_token');
    await context.close();
  });

  // Two browsers' worth of pages, axe scans and a CLI process: past 30 s when the machine is shared.
  it('invites a member who accepts with the shown link and cannot rotate the webhook; their notification level reaches the CLI', { timeout: 90_000 }, async () => {
    const owner = await newPage(browser);
    await signIn(owner.page, seed.owner.id);
    await owner.page.getByRole('link', { name: 'Members' }).click();
    await owner.page.getByLabel('E-mail').fill('stranger@other.test');
    await owner.page.getByRole('button', { name: 'Invite and show a link' }).click();
    await owner.page.getByLabel('Invitation link').waitFor();
    await owner.page.getByLabel('E-mail').fill('newbie@acme.test');
    await owner.page.getByRole('button', { name: 'Invite and show a link' }).click();
    const link = await owner.page.getByLabel('Invitation link').inputValue();
    await owner.page.getByRole('row', { name: /newbie@acme\.test/ }).getByRole('button', { name: 'Withdraw the invitation of newbie@acme.test' }).waitFor();
    await check(owner.page, 'members');
    await owner.page.getByRole('link', { name: 'Usage' }).click();
    await owner.page.getByRole('img', { name: /Alerts per day/ }).waitFor();
    await check(owner.page, 'usage');
    await owner.page.getByRole('link', { name: 'Audit log' }).click();
    await owner.page.getByText('member.invited').first().waitFor();
    await check(owner.page, 'audit');
    await owner.context.close();

    const { context, page } = await newPage(browser, { width: 390 });
    await page.goto(link);
    await page.getByRole('heading', { name: 'Join Acme' }).waitFor();
    await check(page, 'invitation-accept');
    await page.getByLabel('Your name').fill('Nina Newbie');
    await page.getByRole('button', { name: 'Accept and create your account' }).click();
    await page.getByText('Welcome to Acme!').waitFor();
    await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
    // On a phone the sections are in the bar's menu.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('link', { name: /General/ }).click();
    expect(await page.getByRole('button', { name: 'Rotate webhook URL' }).count()).toBe(0);
    // Members may reveal what GET /api/channels already gives their token; rotating it is not theirs.
    await page.getByRole('link', { name: 'Reveal webhook URL' }).waitFor();
    await page.getByText('Only owners and admins can rotate it.').waitFor();
    // The server refuses it too, not only the page.
    const refused = await page.evaluate(
      async ([id, csrf]) => (await fetch(`/channels/${id}/rotate`, { method: 'POST', headers: { 'x-csrf-token': csrf! }, body: new URLSearchParams({ confirm: 'on' }) })).status,
      [seed.general.id, await page.locator('meta[name="csrf-token"]').getAttribute('content')] as const,
    );
    expect(refused).toBe(403);

    // This server sends no e-mail: the settings say so and how to turn it on, instead of levels that do nothing.
    await page.getByText('E-mail is off on this server').waitFor();
    expect(await page.getByRole('button', { name: 'Save notification level' }).count()).toBe(0);
    await check(page, 'channel-settings-member');

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Profile' }).click();
    await check(page, 'profile');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to Alertbridge' }).waitFor();
    await page.goto(`${h.config.publicUrl}/tokens`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await context.close();

    // Sam already has an account: the invitation waits for him, signed in as himself, in the frame and on his profile.
    const sam = await newPage(browser);
    await signIn(sam.page, seed.stranger.id);
    await sam.page.getByRole('link', { name: 'Review pending invitations' }).click();
    await sam.page.getByRole('heading', { name: 'Pending invitations' }).waitFor();
    await check(sam.page, 'profile-pending-invitations');
    await sam.page.getByRole('button', { name: 'Accept the invitation to Acme' }).click();
    await sam.page.getByText('you are now a member of Acme').waitFor();
    await sam.context.close();
  });

  it('works from the keyboard: skip link, visible focus, forms submitted with Enter', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.goto(`${h.config.publicUrl}/tokens`);
    await page.getByLabel('Token name').focus();
    const outline = await page.getByLabel('Token name').evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.type('keyboard only');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Token “keyboard only” created' }).waitFor();
    await context.close();
  });

  it('asks for the password after 30 minutes, and its error pages pass axe', async () => {
    const clock = new ManualClock(Date.now());
    const h2 = await startDashboard({ overrides: { clock } });
    try {
      const s2 = await seedWorkspace(h2.services);
      const { context, page } = await newPage(browser);
      await page.goto(await h2.link(s2.owner.id));
      await page.getByRole('button', { name: /^Sign in as / }).click();
      await page.getByRole('link', { name: 'Profile' }).click();
      await page.getByLabel('New password', { exact: true }).fill('correct horse battery');
      await page.getByLabel('Repeat the new password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Save password' }).click();
      await page.getByText('Password saved.').waitFor();
      clock.advance(31 * 60_000);
      await page.getByRole('link', { name: 'API tokens' }).click();
      await page.getByLabel('Token name').fill('after lunch');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
      await check(page, 'reauth');
      await page.getByLabel('Your password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Confirm and continue' }).click();
      await page.getByRole('heading', { name: 'Token “after lunch” created' }).waitFor();

      await page.goto(`${h2.config.publicUrl}/no-such-page`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await check(page, 'not-found');
      await page.goto(`${h2.config.publicUrl}/auth/link?t=used-or-made-up`);
      await page.getByRole('heading', { name: 'This sign-in link no longer works' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await context.close();
    } finally {
      await h2.close();
    }
  });

  it('keeps the theme chosen with the toggle across pages', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    // The state is visible too (a switch drawn before the label), not only announced.
    const switchColour = () => toggle.evaluate((el) => getComputedStyle(el, '::before').borderTopColor);
    const off = await switchColour();
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await switchColour()).not.toBe(off);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(15, 18, 22)');
    await context.close();
  });
});
