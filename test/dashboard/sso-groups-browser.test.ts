import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, signInAs, type DashHarness } from './helpers.js';

/**
 * The owners' single sign-on groups page in a real Chromium: reached from Members, a refused form
 * with its error next to the field, a mapping added with a private channel and removed through the
 * confirmation dialog, axe-clean and CSP-clean, screenshots at desktop and phone width.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
browserSuite((s) => ({ browser, h, seed } = s));

describe('single sign-on groups in the browser', () => {
  it('maps a group to a role and private channels, refuses a blank group next to the field, and unmaps it', { timeout: 120_000 }, async () => {
    const a = h.services.accounts;
    await a.createChannel({ workspaceId: seed.ws.id, name: 'On-call rotation for the payments platform and its many downstream services', slug: 'oncall-payments-platform-and-every-downstream-service-x', isPrivate: true });
    await h.services.sso.signOn.setMapping({ workspaceId: seed.ws.id, group: 'engineering', role: 'member' }, ['security']);
    await h.services.sso.signOn.setMapping({ workspaceId: seed.ws.id, group: `/corp/departments/${'platform-'.repeat(10)}sre`, role: 'admin' });
    const { context, page } = await newPage(browser);
    await signInAs(h, page, seed.owner.id);
    await page.goto(`${h.config.publicUrl}/members`);
    await page.getByRole('link', { name: 'Single sign-on groups' }).click();
    await page.getByRole('heading', { name: 'Single sign-on groups', level: 1 }).waitFor();
    const form = page.getByRole('region', { name: 'Map a group' });

    await form.getByLabel('Group').fill('   ');
    await form.getByRole('button', { name: 'Map group' }).click();
    await page.getByText('Enter the group’s name as your identity provider sends it').waitFor();
    expect(await form.getByLabel('Group').getAttribute('aria-invalid')).toBe('true');
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'sso-groups-error');

    await form.getByLabel('Group').fill('oncall-admins');
    await form.getByLabel('Role').selectOption('admin');
    await form.getByLabel('#security Security').check();
    await form.getByRole('button', { name: 'Map group' }).click();
    await page.getByText('Group “oncall-admins” now gives the admin role and access to #security').waitFor();
    const row = page.getByRole('row', { name: /oncall-admins/ });
    expect(await row.textContent()).toContain('#security');
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'sso-groups');

    // A reload shows the page again and posts nothing.
    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && posts.push(r.url())));
    await page.reload();
    expect(posts).toEqual([]);

    await page.getByRole('button', { name: 'Remove the mapping of group oncall-admins' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the mapping of group “oncall-admins”?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Remove mapping' }).click();
    await page.getByText('Group “oncall-admins” is no longer mapped').waitFor();
    expect(await page.getByRole('row', { name: /oncall-admins/ }).count()).toBe(0);
    expect((await h.services.sso.signOn.rows.mappings(seed.ws.id)).map((m) => m.group)).not.toContain('oncall-admins');

    // Nothing wider than a phone's screen, whatever the group and channel names.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });
});
