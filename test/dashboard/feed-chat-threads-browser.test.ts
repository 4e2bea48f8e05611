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
    const msg = (n: number, at: number, text: string, extra: Record<string, unknown> = {}) => ({
      messageId: `15000000000000001${String(n).padStart(2, '0')}`, createdAt: at, editedAt: null, text, author: mia, replyTo: null, attachments: [], ...extra,
    });
    await h.services.chatIngest.store(link, [
      msg(1, t0, 'Please add a CSV export of the alert list', { thread: post, reactions: [{ emoji: '👍', count: 12 }, { emoji: '🎉', count: 3 }, { emoji: ':party_parrot:', count: 1 }] }),
      msg(2, t0 + 6 * 60_000, 'Yes, our finance team needs it monthly', { thread: post }),
      msg(3, t0 + 12 * 60_000, 'Unrelated: the login page is slow today', { reactions: [{ emoji: '👀', count: 2 }] }),
    ]);
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await newPage(browser, { colorScheme });
      await signIn(page, seed.owner.id);
      await page.goto(`${h.config.publicUrl}/feed/c/${chat.slug}`);
      const reactions = page.getByRole('list', { name: '16 reactions: 👍 12, 🎉 3, :party_parrot: 1' });
      await reactions.waitFor();
      expect(await page.getByRole('list', { name: '2 reactions: 👀 2' }).count()).toBe(1);
      expect(await page.getByText('Thread: Export to CSV').count()).toBe(2);
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      await screenshots(page, `feed-chat-reactions-${colorScheme}`, { fullPage: false });
      // The channel's threads and forum posts, as a list: the row, the GET form's controls by name.
      await page.getByRole('link', { name: 'Threads and posts' }).click();
      const posts = page.getByRole('list', { name: 'Posts, latest activity first' });
      await posts.getByText('Export to CSV').waitFor();
      await page.getByLabel('Sort by').selectOption('reactions');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByRole('list', { name: 'Posts, most votes first' }).waitFor();
      expect(await page.getByRole('listitem').filter({ hasText: 'Export to CSV' }).textContent()).toMatch(/16 votes · 1 reply/);
      expect(await axeViolations(page)).toEqual([]);
      expect(cspViolations(page)).toEqual([]);
      await screenshots(page, `forum-posts-${colorScheme}`);
      await context.close();
    }
  });
});
