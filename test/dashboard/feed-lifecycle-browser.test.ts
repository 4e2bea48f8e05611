import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness } from './helpers.js';

/**
 * An alert's lifecycle from the feed card's header (issues 25 and 26), in a real Chromium: icon
 * buttons named with the alert and showing their key, acknowledge by click, resolve, reopen and
 * unsnooze by key on the focused entry, snooze from the header's menu; each change swapped in place,
 * shown on the card's status line and seen by the API.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const TITLE = 'Disk full on db-2';

async function signIn(page: Page, userId: string) {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor({ timeout: 15_000 });
}

/** The alert as the API tells it to a member's token. */
async function apiAlert(id: string) {
  return bodyOf.alert(await fetch(`${h.config.publicUrl}/api/alerts/${id}`, { headers: { authorization: `Bearer ${seed.memberToken}` } }));
}

/** The accessible names of the header's controls, in order. */
async function headerNames(entry: Locator): Promise<string[]> {
  return entry.locator('.entry-actions').locator('button.icon-button, summary.icon-button, a.icon-button').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
}

describe('acknowledge, resolve, snooze and reopen from the card header', () => {
  it('click, keys and the snooze menu move the alert; the status line and the API follow; the page stays accessible', async () => {
    const res = await fetch(`${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: TITLE, level: 'ERROR', emoji: 'warning', message: 'Only 2% left on /var/lib/postgresql' }),
    });
    expect(res.status).toBe(201);
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const entry = page.locator('.feed-entry').filter({ hasText: TITLE });
    await entry.waitFor();
    const id = (await entry.getAttribute('data-alert-id'))!;
    const header = entry.getByRole('group', { name: `Actions for “${TITLE}”` });

    // Icon buttons in the header, named with the alert, the key in the tooltip; no stop-gap form under the card.
    expect(await headerNames(entry)).toEqual([`Acknowledge “${TITLE}”`, `Resolve “${TITLE}”`, `Snooze “${TITLE}”`, 'Mark read', `Deliveries of “${TITLE}”`]);
    expect(await header.getByRole('button', { name: `Acknowledge “${TITLE}”` }).getAttribute('title')).toBe('Acknowledge (a)');
    expect(await header.getByRole('button', { name: `Resolve “${TITLE}”` }).getAttribute('title')).toBe('Resolve (r)');
    expect(await header.locator('summary').getAttribute('title')).toBe('Snooze (s)');
    expect(await page.locator('.feed-lifecycle').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // Click: acknowledged, in place (a marker on the page survives), by the member.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await header.getByRole('button', { name: `Acknowledge “${TITLE}”` }).click();
    await entry.locator('.feed-status-line').getByText('Acknowledged by Max Member').waitFor();
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect((await apiAlert(id)).status).toBe('acknowledged');
    expect(await headerNames(entry)).toEqual([`Resolve “${TITLE}”`, `Snooze “${TITLE}”`, `Reopen “${TITLE}”`, 'Mark read', `Deliveries of “${TITLE}”`]);
    expect(await header.getByRole('button', { name: `Reopen “${TITLE}”` }).getAttribute('title')).toBe('Reopen (u)');
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'feed-lifecycle-acknowledged', { fullPage: false });

    // Keys on the focused entry (the swapped entry keeps the focus): r resolves, u reopens.
    await expect.poll(() => entry.evaluate((el) => el.classList.contains('is-current'))).toBe(true);
    await page.keyboard.press('r');
    await entry.locator('.feed-status-line').getByText('Resolved by Max Member').waitFor();
    expect((await apiAlert(id)).status).toBe('resolved');
    expect(await headerNames(entry)).toEqual([`Reopen “${TITLE}”`, 'Mark read', `Deliveries of “${TITLE}”`]);
    await page.keyboard.press('u');
    await entry.locator('.feed-status-line').waitFor({ state: 'detached' });
    expect((await apiAlert(id)).status).toBe('open');

    // s opens the snooze menu on the first choice; Escape closes it back onto its button.
    await page.keyboard.press('s');
    const choices = header.getByRole('group', { name: 'Snooze for' });
    await choices.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('1 hour');
    await page.keyboard.press('Escape');
    await choices.waitFor({ state: 'hidden' });

    // Snooze from the menu: 4 hours, shown on the card and by the API; u wakes it.
    await header.locator('summary').click();
    await choices.waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'feed-lifecycle-snooze-menu', { fullPage: false });
    await choices.getByRole('button', { name: '4 hours' }).click();
    await entry.locator('.feed-status-line').getByText('Snoozed, ends').waitFor();
    const snoozed = await apiAlert(id);
    expect(Date.parse(snoozed.snoozedUntil!) - Date.now()).toBeGreaterThan(3.9 * 3600_000);
    expect(await headerNames(entry)).toEqual([`Acknowledge “${TITLE}”`, `Resolve “${TITLE}”`, `Unsnooze “${TITLE}”`, 'Mark read', `Deliveries of “${TITLE}”`]);
    await page.keyboard.press('u');
    await entry.locator('.feed-status-line').waitFor({ state: 'detached' });
    expect((await apiAlert(id)).snoozedUntil).toBeNull();
    expect(cspViolations(page)).toEqual([]);
    await context.close();
    // Four axe scans and eight screenshots: more than the default 30 s on a busy machine.
  }, 90_000);

  it('a live update that lands before the button’s own answer keeps the card current, so keys still act on it', async () => {
    const title = 'Queue backlog on worker-3';
    const res = await fetch(`${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title, level: 'WARNING', message: '12,400 jobs waiting' }),
    });
    expect(res.status).toBe(201);
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const entry = page.locator('.feed-entry').filter({ hasText: title });
    await entry.waitFor();
    const id = (await entry.getAttribute('data-alert-id'))!;
    // The server acts at once (and broadcasts), but its answer to the button reaches the page only
    // after the live stream's copy of the card has replaced the one that was clicked.
    let held = 0;
    await page.route(`**/*${id}*`, async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      // Sent from the test's side of the browser, which leaves out the Origin the page would send.
      const answer = await route.fetch({ headers: { ...(await route.request().allHeaders()), origin: new URL(route.request().url()).origin } });
      expect(answer.status()).toBe(200);
      await entry.locator('.feed-status-line').getByText('Acknowledged by Max Member').waitFor();
      held += 1;
      await route.fulfill({ response: answer });
    });
    await entry.getByRole('button', { name: `Acknowledge “${title}”` }).click();
    await expect.poll(() => held, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => entry.evaluate((el) => el.classList.contains('is-current'))).toBe(true);
    await page.unroute(`**/*${id}*`);
    await page.keyboard.press('r');
    await entry.locator('.feed-status-line').getByText('Resolved by Max Member').waitFor();
    expect((await apiAlert(id)).status).toBe('resolved');
    await context.close();
  }, 60_000);

  it('for an owner, Delete stays last and secondary after the lifecycle buttons', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    const entry = page.locator('.feed-entry').filter({ hasText: TITLE });
    await entry.waitFor();
    expect(await headerNames(entry)).toEqual([`Acknowledge “${TITLE}”`, `Resolve “${TITLE}”`, `Snooze “${TITLE}”`, 'Mark read', `Deliveries of “${TITLE}”`, `Delete “${TITLE}”`]);
    expect(await entry.getByRole('link', { name: `Delete “${TITLE}”` }).getAttribute('class')).toContain('secondary');
    await context.close();
  });
});
