import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, postAlert, signInAs } from './helpers.js';

/** Search from the dashboard in a real Chromium: the frame's box, `/`, highlighted results, filters. */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const post = (webhookToken: string, payload: unknown) => postAlert(h, webhookToken, payload);

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

const results = (page: Page) => page.getByRole('list', { name: 'Search results, newest first' }).locator('.search-hit');

describe('search in Chromium', () => {
  it('finds alerts by a word of a field value with the words marked, filters by level, and passes axe', async () => {
    await post(seed.deploys.webhookToken, {
      title: 'Deploy api v1.42',
      level: 'SUCCESS',
      message: 'Rolled out to every region.',
      fields: [{ name: 'region', value: 'eu-central-1 (Frankfurt)', inline: true }],
      actor: { name: 'Jane Doe', company: 'Acme' },
    });
    await post(seed.general.webhookToken, { title: 'Payment failed in Frankfurt', level: 'ERROR', message: 'Card declined for order 1042 <img src=x>.', source: 'Stripe' });
    await post(seed.general.webhookToken, { title: 'Latency high', level: 'WARNING', message: 'p99 of checkout above 2 s (frankfurt edge)' });
    await post(seed.secret.webhookToken, { title: 'Frankfurt key rotated', level: 'INFO' });
    await post(seed.general.webhookToken, { title: 'Nothing to see', level: 'INFO', message: 'berlin' });

    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    // `/` focuses the frame's search box; the query is typed and sent with Enter.
    await page.keyboard.press('/');
    const box = page.getByRole('searchbox', { name: 'Search alerts' });
    await expect.poll(() => box.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('frankfurt');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Results for “frankfurt”', level: 1 }).waitFor();

    // Newest first; the private channel's alert stays out of a member's results.
    await expect.poll(() => results(page).count()).toBe(3);
    expect(await results(page).getByRole('heading').allTextContents()).toEqual(['Latency high', 'Payment failed in Frankfurt', 'Deploy api v1.42']);
    // The field value's word is marked; the sender's markup is text.
    const deploy = results(page).filter({ hasText: 'Deploy api v1.42' });
    expect(await deploy.locator('mark').allTextContents()).toEqual(['Frankfurt']);
    // A field reads "label: value" in the excerpt, not run into the prose.
    expect(await deploy.locator('.search-excerpt').textContent()).toContain('region: eu-central-1 (Frankfurt)');
    const payment = results(page).filter({ hasText: 'Payment failed' });
    expect(await payment.getByRole('heading').locator('mark').textContent()).toBe('Frankfurt');
    expect(await payment.locator('.search-excerpt').textContent()).toContain('<img src=x>');
    expect(await page.locator('.search-hit img').count()).toBe(0);
    // The whole card opens on demand.
    await deploy.getByText('Show the whole alert').click();
    await deploy.getByText('eu-central-1 (Frankfurt)', { exact: true }).waitFor();
    // The result is the frame: the whole alert opens inside it without a second card's border and background.
    const inner = await deploy.locator('.ab-card').evaluate((el) => {
      const css = getComputedStyle(el);
      return { left: css.borderLeftWidth, top: css.borderTopWidth, bg: css.backgroundColor, ring: css.boxShadow };
    });
    expect(inner).toEqual({ left: '0px', top: '0px', bg: 'rgba(0, 0, 0, 0)', ring: 'none' });

    // Scanned and pictured with the card open.
    expect(await axeViolations(page)).toEqual([]);
    expect(cspViolations(page)).toEqual([]);
    await screenshots(page, 'search');
    await deploy.getByText('Show the whole alert').click();

    // Level filter: htmx swaps the results and the address follows.
    await page.getByLabel('Level').selectOption('ERROR');
    await page.waitForURL(/level=ERROR/);
    await expect.poll(() => results(page).count()).toBe(1);
    expect(await results(page).getByRole('heading').textContent()).toBe('Payment failed in Frankfurt');
    // Channel filter.
    await page.getByLabel('Level').selectOption('');
    await page.getByLabel('Channel', { exact: true }).selectOption('deploys');
    await page.waitForURL(/channel=deploys/);
    await expect.poll(() => results(page).count()).toBe(1);
    expect(await results(page).getByRole('heading').textContent()).toBe('Deploy api v1.42');

    // Nothing found: said, with the syntax help.
    const box2 = page.getByRole('searchbox', { name: 'Search alerts' });
    await box2.fill('zanzibar');
    await box2.press('Enter');
    await page.getByText('Nothing found with these filters').waitFor();
    await page.getByRole('heading', { name: 'How to search' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'search-empty');
    await context.close();
  });

  it('lists / in the keyboard shortcuts', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    // The scripts are deferred: wait until the live feed has started.
    await page.locator('.feed-layout[data-live]').waitFor();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    await dialog.getByText('Search', { exact: true }).waitFor();
    await context.close();
  });
});
