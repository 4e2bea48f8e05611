import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, signInAs, type DashHarness } from './helpers.js';

/** Quiet hours on Profile in a real Chromium: set by label, a refused zone shown next to its field, axe-clean, screenshots in both themes and sizes. */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
browserSuite((s) => ({ browser, h, seed } = s));

describe('quiet hours in the browser', () => {
  it('sets, refuses a bad zone next to the field, and reloads without posting again', { timeout: 120_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signInAs(h, page, seed.owner.id);
    await page.goto(`${h.config.publicUrl}/profile`);
    const card = page.getByRole('region', { name: 'Quiet hours' });
    await card.getByLabel('Time zone').fill('Mars/Olympus');
    await card.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText('time zone must be an IANA name').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'profile-quiet-hours-error');

    await card.getByLabel('From').fill('22:30');
    await card.getByLabel('Until').fill('06:45');
    await card.getByLabel('Time zone').fill('Europe/Berlin');
    await card.getByLabel('Still notify me about').selectOption('warning');
    await card.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText('Quiet hours saved.').waitFor();
    expect(await card.textContent()).toContain('On: from 22:30 to 06:45 (Europe/Berlin), only warnings and errors reach you.');
    expect(await h.services.quietHours.get(seed.owner.id)).toEqual({ timeZone: 'Europe/Berlin', startMinute: 22 * 60 + 30, endMinute: 6 * 60 + 45, minLevel: 'WARNING' });
    expect(await axeViolations(page)).toEqual([]);
    expect(cspViolations(page)).toEqual([]);
    await screenshots(page, 'profile-quiet-hours');

    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && posts.push(r.url())));
    await page.reload();
    expect(posts).toEqual([]);
    await card.getByRole('button', { name: 'Turn quiet hours off' }).click();
    await page.getByText('Quiet hours are off.').waitFor();
    expect(await h.services.quietHours.get(seed.owner.id)).toBeNull();
    await context.close();
  });
});
