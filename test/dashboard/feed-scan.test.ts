import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshotDir, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, postAlert } from './helpers.js';

/**
 * The feed as something to scan (issue 25), in a real Chromium: the first alert of an empty
 * workspace sent from the page and seen arriving live, the compact list and its rows opening in
 * place, the density remembered on the server, the "N new alerts" pill, the unread count in the
 * title and the favicon, and chat read as turns of a conversation. The tests run in order on one
 * workspace: the first one needs it empty.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const post = (webhookToken: string, payload: unknown) => postAlert(h, webhookToken, payload);

async function signIn(page: Page, userId: string) {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  // A first page in a cold browser on a busy machine can take more than the default 5 s.
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor({ timeout: 15_000 });
}

async function check(page: Page, name: string) {
  expect(await axeViolations(page)).toEqual([]);
  expect(cspViolations(page)).toEqual([]);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshots(page, name, { fullPage: false });
}

/** Nothing scrolls sideways on a 390 px phone (the page is put back to desktop width after). */
async function fitsPhone(page: Page) {
  await page.setViewportSize({ width: 390, height: 844 });
  const wider = await page.evaluate(() => {
    const edge = document.documentElement.clientWidth;
    // The outermost elements past the right edge, named, so a failure says what to fix.
    return [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > edge + 0.5 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > edge + 0.5))
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} → ${Math.round(el.getBoundingClientRect().right)}`);
  });
  expect(wider).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 800 });
}

const list = (page: Page) => page.getByRole('list', { name: 'Alerts, newest first' });
const entries = (page: Page) => list(page).locator('.feed-entry');
const count = async (sql: string, params: unknown[] = []) => Number((await h.query<{ n: number }>(sql, params))[0]!.n);

describe('a feed you can scan', () => {
  it('an empty workspace teaches the first alert: the URL on request, the formats, and a test alert that arrives live', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    const panel = page.getByRole('region', { name: 'Send your first alert' });
    await panel.waitFor();
    expect(await page.getByText('No alerts yet.').count()).toBe(0);
    // The URL is a secret: masked until asked, as on the channel's settings.
    expect(await page.content()).not.toContain(seed.general.webhookToken);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    await check(page, 'feed-empty');
    await fitsPhone(page);

    await panel.getByRole('link', { name: 'Reveal webhook URL' }).click();
    const url = `${h.config.publicUrl}/api/webhook/${seed.general.webhookToken}`;
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe(url);
    expect(await page.getByLabel('Or paste this into a terminal').inputValue()).toContain(`curl -X POST ${url}`);
    for (const suffix of ['slack', 'alertmanager', 'grafana', 'github']) await panel.getByText(`${url}/${suffix}`, { exact: true }).waitFor();
    await fitsPhone(page);
    await screenshots(page, 'feed-empty-revealed');

    // The test alert: the page is not reloaded (a marker survives), the card arrives by the live stream.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    const usage = () => count('SELECT COALESCE(SUM(events), 0) AS n FROM usage_counters WHERE workspace_id = ?', [seed.ws.id]);
    const usageBefore = await usage();
    await panel.getByRole('button', { name: 'Send a test alert' }).click();
    await entries(page).filter({ hasText: 'Test alert: your webhook works' }).waitFor({ timeout: 5_000 });
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await entries(page).count()).toBe(1);
    expect(await entries(page).first().textContent()).toContain('Olive Owner sent this from the dashboard');
    // Stored and counted like any webhook alert, in the channel the panel named.
    expect(await count('SELECT COUNT(*) AS n FROM alerts WHERE channel_id = ?', [seed.general.id])).toBe(1);
    await expect.poll(usage).toBe(usageBefore + 1);
    await page.getByRole('navigation', { name: 'Feeds' }).getByRole('link', { name: 'General, 1 unread alert' }).waitFor();

    // An empty channel teaches the same; a channel with alerts does not.
    await page.goto(`${h.config.publicUrl}/feed/c/deploys`);
    await page.getByRole('region', { name: 'Send your first alert' }).getByText('#deploys').waitFor();
    await page.goto(`${h.config.publicUrl}/feed/c/general`);
    expect(await page.getByRole('region', { name: 'Send your first alert' }).count()).toBe(0);
    await context.close();
  });

  it('the compact list: one row per alert that opens in place (click or Enter), remembered after a reload; long messages clamp', async () => {
    await post(seed.deploys.webhookToken, { title: 'Disk almost full on db-1', level: 'WARNING', emoji: 'warning', message: 'Line of a long log\n'.repeat(40), linkUrl: 'https://grafana.acme.test/d/1', linkText: 'Open in Grafana' });
    await post(seed.deploys.webhookToken, { title: 'Deploy api v1.43', level: 'SUCCESS', emoji: 'rocket' });
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    const disk = entries(page).filter({ hasText: 'Disk almost full on db-1' });

    // Cards: the long message is cut at about eight lines with "Show more"; the link button is not in the level's colour.
    const message = disk.locator('.ab-message');
    const lineHeight = 22;
    expect((await message.boundingBox())!.height).toBeLessThanOrEqual(8 * lineHeight + 2);
    await disk.getByRole('button', { name: 'Show more' }).click();
    expect((await message.boundingBox())!.height).toBeGreaterThan(30 * lineHeight);
    await disk.getByRole('button', { name: 'Show less' }).waitFor();
    const button = disk.getByRole('link', { name: 'Open in Grafana' });
    expect(await button.evaluate((a) => getComputedStyle(a).color)).not.toBe('rgb(255, 255, 255)');
    // Unread is a dot, not the focus ring; the header actions have names and tooltips.
    await disk.locator('.card-dot').waitFor();
    expect(await disk.evaluate((el) => getComputedStyle(el).boxShadow)).toBe('none');
    expect(await disk.getByRole('button', { name: 'Mark read' }).getAttribute('title')).toBe('Mark read (e)');

    await page.getByRole('group', { name: 'Feed density' }).getByRole('button', { name: 'List' }).click();
    const row = disk.locator('.entry-row');
    await row.waitFor();
    expect(await disk.locator('.ab-card').isVisible()).toBe(false);
    expect(await row.textContent()).toMatch(/Warning:.*Disk almost full on db-1.*#deploys/);
    await row.click();
    await disk.locator('.ab-card').waitFor();
    expect(await row.getAttribute('aria-expanded')).toBe('true');
    await check(page, 'feed-compact');
    await fitsPhone(page);
    await row.click();
    await disk.locator('.ab-card').waitFor({ state: 'hidden' });

    // Stored for the person, on the server: a reload (or another browser) finds the list.
    await expect.poll(async () => (await h.query<{ feed_density: string }>('SELECT feed_density FROM user_settings WHERE user_id = ?', [seed.member.id]))[0]?.feed_density).toBe('compact');
    await page.reload();
    expect(await list(page).getAttribute('data-density')).toBe('compact');
    expect(await page.getByRole('button', { name: 'List' }).getAttribute('aria-pressed')).toBe('true');
    // Keyboard: j moves to the first row, Enter opens it.
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await entries(page).first().locator('.ab-card').waitFor();
    // Reading an open row keeps it open (the entry is swapped by the read button).
    await entries(page).first().getByRole('button', { name: 'Mark read' }).click();
    await entries(page).first().getByRole('button', { name: 'Mark unread' }).waitFor();
    expect(await entries(page).first().locator('.ab-card').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Cards' }).click();
    await expect.poll(async () => (await h.query<{ feed_density: string }>('SELECT feed_density FROM user_settings WHERE user_id = ?', [seed.member.id]))[0]?.feed_density).toBe('cards');
    await context.close();
  });

  it('alerts arriving above a reader who scrolled down show an "N new alerts" pill; the title and the favicon count the unread', async () => {
    for (let i = 1; i <= 12; i++) await post(seed.general.webhookToken, { title: `Nightly backup ${i} done`, level: 'INFO', message: 'backup finished\nsize 2 GB\nduration 4 min' });
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const title = async () => Number(/^\((\d+)\)/.exec(await page.title())?.[1] ?? 0);
    const unread = await title();
    expect(unread).toBeGreaterThan(10);
    await expect.poll(() => page.evaluate(() => document.querySelector('link[rel~="icon"]')?.getAttribute('href') ?? '')).toMatch(/^data:image\/png;base64,/);
    const iconBefore = await page.evaluate(() => document.querySelector('link[rel~="icon"]')!.getAttribute('href'));

    await entries(page).nth(8).scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 300));
    const pill = page.getByRole('button', { name: /new alert/ });
    expect(await pill.isVisible()).toBe(false);
    await post(seed.general.webhookToken, { title: 'Checkout latency high', level: 'ERROR' });
    await pill.filter({ hasText: '1 new alert' }).waitFor({ timeout: 5_000 });
    await post(seed.general.webhookToken, { title: 'Checkout latency back to normal', level: 'SUCCESS' });
    await pill.filter({ hasText: '2 new alerts' }).waitFor({ timeout: 5_000 });
    await expect.poll(title).toBe(unread + 2);
    expect(await page.evaluate(() => document.querySelector('link[rel~="icon"]')!.getAttribute('href'))).not.toBe(iconBefore);
    // Seen where the reader is (check() would scroll to the top, which is what dismisses the pill).
    expect(await axeViolations(page)).toEqual([]);
    if (!process.env.SCREENSHOT_NAMES) await page.screenshot({ path: `${screenshotDir}/feed-new-alerts-desktop-light.png` });

    await pill.click();
    await pill.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeLessThan(50);
    await entries(page).filter({ hasText: 'Checkout latency back to normal' }).first().waitFor();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(title).toBe(0);
    await context.close();
  });

  it('chat reads as a conversation: one name and avatar per turn of an author, replies as a quoted line, role badges kept', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Community', icon: '💬' });
    await h.services.discordLinks.connect(chat.id, '1300000000000000001');
    const link = { channelId: chat.id, discordChannelId: '1300000000000000001' };
    const t0 = Date.now() - 20 * 60_000;
    const mia = { id: 'u1', name: 'Mia Member', bot: false, role: 'member' as const };
    const olive = { id: 'u2', name: 'Olive Owner', bot: false, role: 'owner' as const };
    const msg = (n: number, at: number, text: string, author: typeof mia | typeof olive, replyTo: { messageId: string; author: string; text: string } | null = null) => ({
      messageId: `13000000000000001${String(n).padStart(2, '0')}`, createdAt: at, editedAt: null, text, author, replyTo, attachments: [],
    });
    await h.services.chatIngest.store(link, [
      msg(1, t0, 'Checkout is slow since this morning', mia),
      msg(2, t0 + 40_000, 'Mostly on the payment step', mia),
      msg(3, t0 + 70_000, 'and only for cards, PayPal is fine', mia),
      msg(4, t0 + 120_000, 'Looking into it now', olive, { messageId: '1300000000000000101', author: 'Mia Member', text: 'Checkout is slow since this morning' }),
      msg(5, t0 + 15 * 60_000, 'Better now, thanks!', mia),
    ]);
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}`);
    await expect.poll(() => entries(page).count()).toBe(5);
    // Newest first: Mia (later, a new turn), Olive, then Mia's three messages as one turn named once.
    expect(await entries(page).evaluateAll((els) => els.map((el) => el.getAttribute('data-continues') === 'true'))).toEqual([false, false, false, true, true]);
    const visibleNames = await entries(page).locator('.ab-author').evaluateAll((els) => els.filter((el) => (el as HTMLElement).offsetParent !== null).map((el) => el.textContent));
    expect(visibleNames).toEqual(['Mia Member', 'Olive Owner', 'Mia Member']);
    const reply = entries(page).filter({ hasText: 'Looking into it now' });
    await reply.getByText('owner', { exact: true }).waitFor();
    const quote = reply.locator('.ab-reply-quote');
    expect(await quote.textContent()).toContain('Checkout is slow since this morning');
    expect((await quote.boundingBox())!.height).toBeLessThan(24);
    // Compact: a turn's later messages sit close under the first.
    const [a, b] = await Promise.all([entries(page).nth(3).boundingBox(), entries(page).nth(4).boundingBox()]);
    expect(b!.y - (a!.y + a!.height)).toBeLessThan(4);
    expect(a!.height).toBeLessThan(40);
    await check(page, 'feed-chat-turns');
    await fitsPhone(page);

    // A live message from the same author within minutes joins the turn on top.
    await h.services.chatIngest.store(link, [msg(6, t0 + 16 * 60_000, 'Confirmed on my phone too', mia)]);
    await expect.poll(() => entries(page).count()).toBe(6);
    await expect.poll(() => entries(page).nth(1).getAttribute('data-continues')).toBe('true');
    expect(await entries(page).first().getAttribute('data-continues')).toBeNull();
    await context.close();
  });
});
