import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshotDir, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, signInAs, type DashHarness } from '../dashboard/helpers.js';

/** The Escalation section of a channel's settings in a real Chromium: a refused value, saved, turned off. */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
browserSuite((s) => ({ browser, h, seed } = s));

describe('channel settings: escalation', () => {
  it('an owner sets it with an error shown beside its field, then turns it off', { timeout: 120_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signInAs(h, page, seed.owner.id);
    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}`);
    const section = page.getByRole('region', { name: 'Escalation' });
    await section.getByText('Off: an alert nobody acknowledges is not sent again.').waitFor();

    await section.getByLabel('Escalate alerts at').selectOption('WARNING');
    await section.getByLabel('First reminder after').fill('10 minutes');
    await section.getByLabel('Reminders to the channel').fill('3');
    await section.getByLabel(/Max Member/).check();
    await section.getByRole('button', { name: 'Turn on escalation' }).click();
    const after = page.getByRole('region', { name: 'Escalation' }).getByLabel('First reminder after');
    await page.getByText('after must be an integer and a unit: 30s, 10m, 2h, 1d').waitFor();
    // What was typed stays, and the field names its error.
    expect(await after.inputValue()).toBe('10 minutes');
    expect(await after.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('region', { name: 'Escalation' }).getByLabel(/Max Member/).isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'channel-escalation-error');

    await after.fill('15m');
    await page.getByRole('region', { name: 'Escalation' }).getByRole('button', { name: 'Turn on escalation' }).click();
    await page.getByText('Escalation of “General” saved.').waitFor();
    await page.getByText('the last of the 4 steps goes to member@acme.test').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(cspViolations(page)).toEqual([]);
    const files = await screenshots(page, 'channel-escalation');
    expect(files.length === 0 || files[0]!.startsWith(screenshotDir)).toBe(true);

    await page.getByRole('button', { name: 'Turn escalation off' }).click();
    const ask = page.getByRole('dialog', { name: 'Turn escalation off for “General”?' });
    await ask.getByRole('button', { name: 'Turn escalation off' }).click();
    await page.getByText('Escalation of “General” turned off.').waitFor();
    expect(await h.query('SELECT * FROM escalation_policies')).toEqual([]);
    await context.close();
  });
});
