import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import type { Page } from 'playwright-core';
import { browserSuite, type DashHarness } from './helpers.js';

/** Issue 29's chat markup in a real Chromium: reaction chips and thread/tag chips pass axe and the CSP, in light and dark. */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

/** As signInAs, with the longer wait a cold browser on a busy two-core machine needs (as feed-scan does). */
async function signIn(page: Page, userId: string) {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor({ timeout: 15_000 });
}

describe('chat reactions and threads in the browser', () => {
  it('shows reaction chips and the thread with its tags, accessibly', { timeout: 180_000 }, async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Feature requests', icon: '🗳️' });
    await h.services.discordLinks.connect(chat.id, '1500000000000000001');
    const link = { channelId: chat.id, discordChannelId: '1500000000000000001' };
    const mia = { id: 'u1', name: 'Mia Member', bot: false, role: 'member' as const };
    const t0 = Date.now() - 30 * 60_000;
    const post = { id: '1500000000000000101', name: 'Export to CSV', tags: ['feature', 'export'], archived: false };
    const longPost = { id: '1500000000000000104', name: `Dark mode ${'x'.repeat(60)} for night shifts and on-call people`.slice(0, 100), tags: ['ui'], archived: false };
    const msg = (n: number, at: number, text: string, extra: Record<string, unknown> = {}) => ({
      messageId: `15000000000000001${String(n).padStart(2, '0')}`, createdAt: at, editedAt: null, text, author: mia, replyTo: null, attachments: [], ...extra,
    });
    await h.services.chatIngest.store(link, [
      msg(1, t0, 'Please add a CSV export of the alert list', { thread: post, reactions: [{ emoji: '👍', count: 12 }, { emoji: '🎉', count: 3 }, { emoji: ':party_parrot:', count: 1 }] }),
      msg(2, t0 + 6 * 60_000, 'Yes, our finance team needs it monthly', { thread: post }),
      msg(3, t0 + 12 * 60_000, 'Unrelated: the login page is slow today', { reactions: [{ emoji: '👀', count: 2 }] }),
      // Hostile data: a 100-character thread name, an unbroken word and a long reply.
      msg(4, t0 + 14 * 60_000, 'Dark mode for the dashboard, please: my eyes at 3 a.m. on call', { thread: longPost, reactions: [{ emoji: '👍', count: 4 }] }),
      msg(5, t0 + 15 * 60_000, `Agreed. ${'a'.repeat(120)} ${'Long reply text. '.repeat(40)}`, { thread: longPost }),
      msg(6, t0 + 16 * 60_000, 'Same here', { thread: longPost, reactions: [{ emoji: '❤️', count: 1 }] }),
    ]);
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await newPage(browser, { colorScheme });
      await signIn(page, seed.owner.id);
      await page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}`);
      const reactions = page.getByRole('list', { name: '16 reactions: 👍 12, 🎉 3, :party_parrot: 1' });
      await reactions.waitFor();
      expect(await page.getByRole('list', { name: '2 reactions: 👀 2' }).count()).toBe(1);
      // Each thread once, as its head message with "N replies"; the replies are not in the channel's feed.
      expect(await page.getByText('Thread: Export to CSV').count()).toBe(1);
      expect(await page.getByText('Yes, our finance team needs it monthly').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      await screenshots(page, `feed-chat-reactions-${colorScheme}`, { fullPage: false });
      // Expanded in place (htmx): the replies under the head, oldest first; the page does not change.
      const before = page.url();
      await page.getByRole('link', { name: /^2 replies in “Dark mode/ }).click();
      const replies = page.getByRole('list', { name: /^Replies in “Dark mode/ });
      await replies.getByText('Same here').waitFor();
      expect(page.url()).toBe(before);
      expect(await replies.getByRole('listitem').count()).toBeGreaterThanOrEqual(2);
      await page.getByRole('link', { name: '1 reply in “Export to CSV”' }).click();
      await page.getByRole('list', { name: 'Replies in “Export to CSV”, oldest first' }).getByText('Yes, our finance team needs it monthly').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(1280);
      await screenshots(page, `feed-chat-thread-open-${colorScheme}`);
      // The same link opens the thread's page where script does not run it.
      await page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}/threads/${post.id}`);
      await page.getByRole('heading', { name: 'Export to CSV', level: 1 }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      await page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}`);
      // The channel's threads and forum posts, as a list: the row, the GET form's controls by name.
      await page.getByRole('link', { name: 'Threads and posts' }).click();
      const posts = page.getByRole('list', { name: 'Posts, latest activity first' });
      await posts.getByText('Export to CSV').waitFor();
      await page.getByLabel('Sort by').selectOption('reactions');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByRole('list', { name: 'Posts, most votes first' }).waitFor();
      expect(await page.getByRole('listitem').filter({ hasText: 'Export to CSV' }).textContent()).toMatch(/16 votes · 1 reply/);
      expect(await page.getByRole('button', { name: 'Show posts' }).evaluate((b) => b.classList.contains('button'))).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      await screenshots(page, `forum-posts-${colorScheme}`);
      await context.close();
    }
  });
});

describe('the connect form in the browser', () => {
  it('lists servers and channels by name with the id fallback, accessibly, on a phone too', { timeout: 180_000 }, async () => {
    // The bridge's cache as the directory reads it (test/dashboard/discord-connect.test.ts runs the real bridge); 40 channels, a long name.
    const channel = (i: number) => ({ id: `16000000000000${String(1000 + i)}`, name: i === 0 ? `announcements-${'and-more-'.repeat(8)}` : `channel-${i}`, kind: (i % 10 === 0 ? 'forum' : 'text') as 'forum' | 'text' });
    h.services.discordDirectory.attach({
      servers: () => [
        { id: '1600000000000000001', name: 'Ops', channels: Array.from({ length: 40 }, (_, i) => channel(i)) },
        { id: '1600000000000000002', name: `Lab ${'very long server name '.repeat(4)}`.trim(), channels: [{ id: '1600000000000002001', name: 'feedback', kind: 'text' }] },
      ],
    });
    try {
      const { context, page } = await newPage(browser);
      await signIn(page, seed.owner.id);
      await page.goto(`${h.config.publicUrl}/channels/${seed.deploys.id}`);
      const select = page.getByLabel('Discord channel', { exact: true });
      await select.selectOption('1600000000000002001');
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      await page.locator('#discord-title').scrollIntoViewIfNeeded();
      await screenshots(page, 'discord-connect-form', { fullPage: false });
      await page.getByRole('button', { name: 'Connect to Discord' }).click();
      await page.getByText('now mirrors Discord channel #feedback on Lab').waitFor();
      await context.close();
    } finally {
      h.services.discordDirectory.attach(null);
    }
  });
});
