import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { type DashHarness, signInAs, startDashboard } from './helpers.js';

/**
 * The live feed as a reader sees it: a dropped stream that resumes with
 * Last-Event-ID, and live cards that look like the cards the page loaded.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

beforeAll(async () => {
  // A short reconnection delay (the stream's `retry:`), so the browser comes back quickly after the drop.
  [browser, h] = await Promise.all([launchBrowser(), startDashboard({ overrides: { live: { retryMs: 300, pollIntervalMs: 200 } } })]);
  seed = await seedWorkspace(h.services);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function post(webhookToken: string, payload: unknown): Promise<string> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { alertId: string }).alertId;
}

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

const cards = (page: Page) => page.getByRole('list', { name: 'Alerts, newest first' }).locator('.feed-entry');
/** Card titles without the level's emoji in front. */
const titles = async (page: Page) => (await cards(page).getByRole('heading', { level: 2 }).allTextContents()).map((t) => t.slice(t.indexOf(' ') + 1));
/** The card's header line as the reader sees it (hidden parts left out). */
const headerLine = (page: Page, title: string) => cards(page).filter({ hasText: title }).locator('.ab-header-meta').innerText();

describe('the live feed in Chromium', () => {
  it('resumes a dropped stream with Last-Event-ID and shows every alert posted meanwhile exactly once', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    // A marker that a reload would wipe: the alerts must arrive through the resumed stream, not a reload.
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const streams: Request[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/feed/stream') streams.push(r);
    });

    await post(seed.general.webhookToken, { title: 'Before the drop', level: 'INFO' });
    await page.getByRole('heading', { name: /Before the drop/ }).waitFor();
    // The id of the last event the page received: the change log's head.
    const lastSeen = await h.services.live.headId();

    // The network drops: the open stream is cut, and reconnection attempts fail until the network is back.
    await page.route('**/feed/stream', (route) => route.abort('internetdisconnected'));
    h.dropConnections();
    await page.locator('.feed-layout[data-live="reconnecting"]').waitFor();
    const meanwhile: string[] = [];
    for (let i = 1; i <= 6; i++) {
      const title = `While away ${i}`;
      await post(i % 2 ? seed.general.webhookToken : seed.deploys.webhookToken, { title, level: i === 3 ? 'ERROR' : 'INFO' });
      meanwhile.push(title);
    }
    const blocked = streams.length;
    await page.unroute('**/feed/stream');

    // Back online: every alert once, newest first, above what was there, without a reload.
    await page.getByRole('heading', { name: /While away 6/ }).waitFor({ timeout: 5_000 });
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    await expect.poll(() => titles(page)).toEqual([...meanwhile].reverse().concat('Before the drop'));
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // The stream that came back asked to resume after the last event it had seen.
    const resumed = streams.slice(blocked).find((r) => r.headers()['last-event-id'] !== undefined);
    expect(resumed, 'a reconnection carrying Last-Event-ID').toBeDefined();
    expect(Number(resumed!.headers()['last-event-id'])).toBe(lastSeen);
    // Nothing arrives twice later on either (a duplicate event would add a second card with the same id).
    await post(seed.general.webhookToken, { title: 'After the return', level: 'INFO' });
    await page.getByRole('heading', { name: /After the return/ }).waitFor();
    const ids = await cards(page).evaluateAll((els) => els.map((el) => el.getAttribute('data-alert-id')));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(8);
    await context.close();
  });

  it('labels live cards with their channel exactly as the cards the page loaded: shown on All channels, left out on a channel page', async () => {
    await post(seed.deploys.webhookToken, { title: 'Loaded deploy', level: 'SUCCESS' });
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);

    // A single channel's page: the loaded card and a live one both read "just now", without "#deploys".
    await page.getByRole('navigation', { name: 'Feeds' }).getByRole('link', { name: /^Deploys/ }).click();
    await page.getByRole('heading', { name: '🚀 Deploys', level: 1 }).waitFor();
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    await post(seed.deploys.webhookToken, { title: 'Live deploy', level: 'SUCCESS' });
    await page.getByRole('heading', { name: /Live deploy/ }).waitFor({ timeout: 5_000 });
    expect(await headerLine(page, 'Loaded deploy')).not.toContain('#deploys');
    expect(await headerLine(page, 'Live deploy')).toBe(await headerLine(page, 'Loaded deploy'));
    // Still so after its read button swapped the card.
    await cards(page).filter({ hasText: 'Live deploy' }).getByRole('button', { name: 'Mark read' }).click();
    await cards(page).filter({ hasText: 'Live deploy' }).getByRole('button', { name: 'Mark unread' }).waitFor();
    expect(await headerLine(page, 'Live deploy')).not.toContain('#deploys');

    // All channels: loaded and live cards both name their channel.
    await page.getByRole('navigation', { name: 'Feeds' }).getByRole('link', { name: 'All channels' }).click();
    await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    await post(seed.deploys.webhookToken, { title: 'Another live deploy', level: 'SUCCESS' });
    await page.getByRole('heading', { name: /Another live deploy/ }).waitFor({ timeout: 5_000 });
    expect(await headerLine(page, 'Loaded deploy')).toMatch(/#deploys · /);
    expect(await headerLine(page, 'Another live deploy')).toBe(await headerLine(page, 'Loaded deploy'));
    await context.close();
  });
  it('a live reply in a folded thread updates the head\'s "N replies" in place; the reply does not arrive at the top', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Live threads', icon: '🧵' });
    await h.services.discordLinks.connect(chat.id, '1450000000000000001');
    const link = { channelId: chat.id, discordChannelId: '1450000000000000001' };
    const mia = { id: 'u1', name: 'Mia Member', bot: false, role: 'member' as const };
    const thread = { id: '1450000000000000100', name: 'Dark mode', tags: [], archived: false };
    const message = (id: string, at: number, text: string, extra: Record<string, unknown> = {}) => ({ messageId: id, createdAt: at, editedAt: null, text, author: mia, replyTo: null, attachments: [], ...extra });
    const t0 = Date.now() - 5 * 60_000;
    await h.services.chatIngest.store(link, [
      message('1450000000000000100', t0, 'Dark mode for the dashboard, please', { thread }),
      message('1450000000000000101', t0 + 1000, 'Agreed', { thread }),
      message('1450000000000000102', t0 + 2000, 'A channel message'),
    ]);
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}`);
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const fold = page.getByRole('link', { name: /^\d+ repl(y|ies) in “Dark mode”$/ });
    expect(await fold.getAttribute('aria-label')).toBe('1 reply in “Dark mode”');
    // A second reader with the feed open: the reply's head is looked up once for both.
    const second = await newPage(browser);
    await signIn(second.page, seed.member.id);
    await second.page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}`);
    await second.page.locator('.feed-layout[data-live="open"]').waitFor();
    const threads = h.services.chatThreads;
    const heads = threads.heads.bind(threads);
    let headLookups = 0;
    threads.heads = (...args) => (headLookups++, heads(...args));

    await h.services.chatIngest.store(link, [message('1450000000000000103', Date.now(), 'Same here, live', { thread })]);
    await page.getByRole('link', { name: '2 replies in “Dark mode”' }).waitFor({ timeout: 5_000 });
    await second.page.getByRole('link', { name: '2 replies in “Dark mode”' }).waitFor({ timeout: 5_000 });
    threads.heads = heads;
    expect(headLookups).toBe(1);
    await second.context.close();
    // The reply is under the fold, not a card of its own at the top; the channel message stays where it was.
    const entries = page.locator('.feed-list > .feed-entry');
    expect(await page.getByText('Same here, live').count()).toBe(0);
    expect(await entries.first().innerText()).toContain('A channel message');
    await context.close();
  });
});
