import type { Browser, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, signInAs } from './helpers.js';

/**
 * The feed behaviours the main feed test leaves out, in a real Chromium: `o`,
 * the unread-only views far below the newest alerts, chat edits and deletions
 * live, one stream shared by two tabs with one notification per alert.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

async function post(webhookToken: string, payload: unknown): Promise<string> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { alertId: string }).alertId;
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.config.publicUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${seed.ownerToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
  return res.json() as Promise<unknown>;
}

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

const feeds = (page: Page) => page.getByRole('navigation', { name: 'Feeds' });
const cards = (page: Page) => page.getByRole('list', { name: 'Alerts, newest first' }).locator('.feed-entry');

async function clean(page: Page) {
  expect(await axeViolations(page)).toEqual([]);
  expect(cspViolations(page)).toEqual([]);
}

describe('more of the feed in Chromium', () => {
  it('o opens the current card’s link in a new tab and marks the card read', async () => {
    await post(seed.deploys.webhookToken, { title: 'Deploy shop v3', level: 'SUCCESS', linkUrl: `${h.config.publicUrl}/healthz`, linkText: 'Open deploy' });
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await feeds(page).getByRole('link', { name: /^Deploys/ }).click();
    await page.getByRole('heading', { name: '🚀 Deploys', level: 1 }).waitFor();
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const card = cards(page).filter({ hasText: 'Deploy shop v3' });
    expect(await card.getAttribute('data-read')).toBe('false');

    await page.keyboard.press('j');
    await expect.poll(() => card.evaluate((el) => el.classList.contains('is-current'))).toBe(true);
    const opened = context.waitForEvent('page');
    await page.keyboard.press('o');
    const tab = await opened;
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${h.config.publicUrl}/healthz`);
    await expect.poll(() => card.getAttribute('data-read')).toBe('true');
    const alerts = (await api('GET', '/api/channels/deploys/alerts')) as { alerts: { title: string; isRead: boolean }[] };
    expect(alerts.alerts.find((a) => a.title === 'Deploy shop v3')!.isRead).toBe(true);
    await context.close();
  });

  it('the Unread view and "Unread only" find unread alerts far below hundreds of read ones, without a click', async () => {
    const ch = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Metrics', icon: '📈' });
    const token = ch.webhookToken;
    const oldest = await post(token, { title: 'Old unread disk alert', level: 'WARNING' });
    for (let i = 0; i < 520; i++) await post(token, { title: `Sample ${i}`, level: 'INFO' });
    await api('POST', '/api/alerts/mark-all-read', {});
    await api('PATCH', `/api/alerts/${oldest}`, { isRead: false });

    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await feeds(page).getByRole('link', { name: 'Unread, 1 unread alert' }).click();
    await page.getByRole('heading', { name: 'Unread', level: 1 }).waitFor();
    // 520 read alerts are newer: the page keeps loading older rows by itself until the unread one shows.
    await cards(page).filter({ hasText: 'Old unread disk alert' }).waitFor({ timeout: 10_000 });
    expect(await cards(page).count()).toBe(1);
    // The short first page said it was still looking, never "Nothing unread."; that line is gone once the card is there.
    expect(await page.getByText('Nothing unread.').count()).toBe(0);
    await page.getByText('None among the newest alerts; looking further back…').waitFor({ state: 'hidden' });
    await clean(page);

    // The channel with "Unread only": the same card, and the address says so.
    await feeds(page).getByRole('link', { name: /^Metrics/ }).click();
    await page.getByRole('heading', { name: '📈 Metrics', level: 1 }).waitFor();
    await page.getByLabel('Unread only').check();
    await page.waitForURL(/unread=1/);
    await cards(page).filter({ hasText: 'Old unread disk alert' }).waitFor({ timeout: 10_000 });
    expect(await cards(page).count()).toBe(1);

    // Read it: nothing unread is left, and the page says so only now.
    await cards(page).first().getByRole('button', { name: 'Mark read' }).click();
    await feeds(page).getByRole('link', { name: 'Metrics, no unread alerts' }).waitFor();
    await page.reload();
    await page.getByText('Nothing unread.').waitFor({ timeout: 10_000 });
    await context.close();
  });

  it('shows chat edits and deletions live, in place', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Feedback', icon: '💬' });
    const link = { channelId: chat.id, discordChannelId: '1300000000000000001' };
    await h.services.discordLinks.connect(chat.id, link.discordChannelId);
    const author = { id: 'u1', name: 'Mia Member', bot: false, role: 'member' as const };
    const message = (id: string, text: string, editedAt: number | null = null) => ({
      messageId: id,
      createdAt: Date.now() - 5_000,
      editedAt,
      text,
      author,
      replyTo: null,
      attachments: [],
    });
    await h.services.chatIngest.store(link, [message('1300000000000000010', 'The export button does nothing'), message('1300000000000000011', 'Also the logo is blurry')]);

    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await feeds(page).getByRole('link', { name: /^Feedback \(chat\)/ }).click();
    await page.getByRole('heading', { name: '💬 Feedback', level: 1 }).waitFor();
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await expect.poll(() => cards(page).count()).toBe(2);

    expect(await h.services.chatIngest.edit(link, message('1300000000000000010', 'The CSV export button does nothing on Firefox', Date.now()))).toBe('updated');
    const edited = cards(page).filter({ hasText: 'The CSV export button does nothing on Firefox' });
    await edited.waitFor({ timeout: 5_000 });
    await edited.getByText('(edited)').waitFor();
    expect(await page.getByText('The export button does nothing', { exact: true }).count()).toBe(0);

    expect(await h.services.chatIngest.remove(link, ['1300000000000000011'])).toBe(1);
    await page.getByText('Also the logo is blurry').waitFor({ state: 'detached', timeout: 5_000 });
    expect(await cards(page).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await clean(page);
    await context.close();
  });

  it('two tabs share one stream; both show a live card, and only one raises the browser notification', async () => {
    const { context, page } = await newPage(browser);
    // Headless Chromium denies notifications: stand in for the browser's Notification API (granted), recording what the page shows.
    await context.addInitScript(() => {
      const shown: string[] = [];
      (window as unknown as { shownNotifications: string[] }).shownNotifications = shown;
      class RecordingNotification {
        static permission = 'granted';
        static requestPermission = () => Promise.resolve('granted');
        onclick: (() => void) | null = null;
        constructor(title: string) {
          shown.push(title);
        }
      }
      Object.defineProperty(window, 'Notification', { value: RecordingNotification, configurable: true });
    });
    const streams: Request[] = [];
    context.on('request', (r) => {
      if (new URL(r.url()).pathname === '/feed/stream') streams.push(r);
    });
    await signIn(page, seed.owner.id);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const second = await context.newPage();
    await second.goto(`${h.config.publicUrl}/feed`);
    await second.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
    // The second tab's scripts have run (its shortcuts dialog is wired) before the alert is posted.
    await second.keyboard.press('?');
    await second.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await second.keyboard.press('Escape');

    await post(seed.general.webhookToken, { title: 'Both tabs see this', level: 'ERROR' });
    await page.getByRole('heading', { name: /Both tabs see this/ }).waitFor({ timeout: 5_000 });
    await second.getByRole('heading', { name: /Both tabs see this/ }).waitFor({ timeout: 5_000 });
    expect(streams).toHaveLength(1);
    const shown = async (p: Page) => p.evaluate(() => (window as unknown as { shownNotifications: string[] }).shownNotifications);
    await expect.poll(async () => [...(await shown(page)), ...(await shown(second))]).toEqual(['Both tabs see this']);

    // Below the user's level for the channel: a card, no notification.
    await h.services.notifyPrefs.set(seed.owner.id, seed.general.id, 'important');
    await post(seed.general.webhookToken, { title: 'Quiet info', level: 'INFO' });
    await second.getByRole('heading', { name: /Quiet info/ }).waitFor({ timeout: 5_000 });
    await page.getByRole('heading', { name: /Quiet info/ }).waitFor({ timeout: 5_000 });
    expect([...(await shown(page)), ...(await shown(second))]).toEqual(['Both tabs see this']);
    await context.close();
  });
});
