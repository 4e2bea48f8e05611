import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, signInAs } from './helpers.js';

/**
 * The feed in a real Chromium: cards as a reader sees them, found by role and
 * accessible name; live updates waited for (never slept for).
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

async function post(webhookToken: string, payload: unknown) {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status).toBe(201);
  return (await res.json()) as { alertId: string };
}

async function api<T>(path: string, token = seed.ownerToken): Promise<T> {
  const res = await fetch(`${h.config.publicUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

async function check(page: Page, name: string, opts: { fullPage?: boolean } = {}) {
  expect(await axeViolations(page)).toEqual([]);
  expect(cspViolations(page)).toEqual([]);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshots(page, name, opts);
}

const feeds = (page: Page) => page.getByRole('navigation', { name: 'Feeds' });
const cards = (page: Page) => page.getByRole('list', { name: 'Alerts, newest first' }).locator('.feed-entry');

describe('the feed in Chromium', () => {
  it('lists visible channels with unread badges, pages older cards, filters by level and clears badges with mark-all-read', async () => {
    const ch = seed.general;
    for (let i = 1; i <= 30; i++) {
      const failed = i % 10 === 0;
      await post(ch.webhookToken, {
        title: failed ? `Build #${i} failed` : `Build #${i} passed`,
        level: failed ? 'ERROR' : 'INFO',
        message: failed ? `2 tests failed in checkout\nLogs: https://ci.acme.test/builds/${i}` : `main @ ${(0xabc000 + i).toString(16)}`,
        source: 'GitHub Actions',
      });
    }
    await post(seed.deploys.webhookToken, {
      title: 'Deploy api v1.42',
      level: 'SUCCESS',
      emoji: 'rocket',
      fields: [
        { name: 'version', value: 'v1.42', inline: true },
        { name: 'region', value: 'eu-west-1', inline: true },
      ],
      linkUrl: 'https://deploy.acme.test/1042',
      linkText: 'Open deploy',
      actor: { name: 'Jane Doe', email: 'jane@acme.test', company: 'Acme' },
    });

    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id);
    // The member cannot see the private channel; the badges are the API's `_count.alerts`.
    await feeds(page).getByRole('link', { name: 'General, 30 unread alerts' }).waitFor();
    await feeds(page).getByRole('link', { name: 'Deploys, 1 unread alert' }).waitFor();
    await feeds(page).getByRole('link', { name: 'Unread, 31 unread alerts' }).waitFor();
    expect(await feeds(page).getByRole('link', { name: /Security/ }).count()).toBe(0);
    expect(await page.title()).toBe('(31) All channels · Alertbridge');

    // Newest first across channels; the first page is 25 cards, scrolling loads the rest.
    await expect.poll(() => cards(page).count()).toBe(25);
    expect(await cards(page).first().getByRole('heading').textContent()).toContain('Deploy api v1.42');
    await cards(page).last().scrollIntoViewIfNeeded();
    await expect.poll(() => cards(page).count()).toBe(31);
    expect(await cards(page).last().getByRole('heading').textContent()).toContain('Build #1 passed');
    // The exact time stays on hover while the text is relative.
    const time = cards(page).first().locator('article time');
    expect(await time.getAttribute('title')).toMatch(/UTC$/);
    expect(await time.textContent()).toMatch(/now|second|minute/);
    await check(page, 'feed', { fullPage: false });

    // Level filter (a plain GET form).
    await feeds(page).getByRole('link', { name: /^General/ }).click();
    await page.getByRole('heading', { name: '📢 General', level: 1 }).waitFor();
    await page.getByLabel('Level').selectOption('ERROR');
    await page.waitForURL(/level=ERROR/);
    await expect.poll(() => cards(page).count()).toBe(3);

    // One card read by its button: the badges and the title follow.
    await cards(page).first().getByRole('button', { name: 'Mark read' }).click();
    await cards(page).first().getByRole('button', { name: 'Mark unread' }).waitFor();
    await feeds(page).getByRole('link', { name: 'General, 29 unread alerts' }).waitFor();
    expect(await page.title()).toBe('(30) 📢 General · Alertbridge');

    await page.getByRole('button', { name: 'Mark channel read' }).click();
    await feeds(page).getByRole('link', { name: 'General, no unread alerts' }).waitFor();
    await feeds(page).getByRole('link', { name: 'Deploys, 1 unread alert' }).waitFor();
    await feeds(page).getByRole('link', { name: /^Unread/ }).click();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await feeds(page).getByRole('link', { name: 'Unread, no unread alerts' }).waitFor();
    await page.getByText('Nothing unread.').waitFor();
    const channels = await api<{ id: string; _count: { alerts: number } }[]>('/api/channels', seed.memberToken);
    expect(channels.map((c) => c._count.alerts)).toEqual([0, 0]);
    // Someone else's read state is untouched.
    const owners = await api<{ id: string; _count: { alerts: number } }[]>('/api/channels');
    expect(owners.find((c) => c.id === ch.id)!._count.alerts).toBe(30);
    await context.close();
  });

  it('shows a posted alert and a three-POST workflow run live, and follows reads made through the API', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await feeds(page).getByRole('link', { name: /^Deploys/ }).click();
    await page.getByRole('heading', { name: '🚀 Deploys', level: 1 }).waitFor();
    await page.locator('.feed-layout[data-live="open"]').waitFor();
    const before = await cards(page).count();

    await post(seed.deploys.webhookToken, { title: 'Cache warmed', level: 'SUCCESS' });
    await page.getByRole('heading', { name: /Cache warmed/ }).waitFor({ timeout: 5_000 });
    expect(await cards(page).count()).toBe(before + 1);
    expect(await cards(page).first().getByRole('heading').textContent()).toContain('Cache warmed');

    const run = (state: string, steps: unknown[], error?: string) =>
      post(seed.deploys.webhookToken, { title: 'Deploy web v7', workflow: { runId: 'web-7', state, steps, ...(error ? { error } : {}) } });
    await run('running', [{ name: 'build', state: 'running' }, { name: 'test', state: 'pending' }, { name: 'deploy', state: 'pending' }]);
    const runCard = cards(page).filter({ hasText: 'Deploy web v7' });
    await runCard.waitFor({ timeout: 5_000 });
    await run('running', [{ name: 'build', state: 'done', seconds: 42 }, { name: 'test', state: 'running' }, { name: 'deploy', state: 'pending' }]);
    await runCard.getByText('42s').waitFor({ timeout: 5_000 });
    await run('failed', [{ name: 'build', state: 'done', seconds: 42 }, { name: 'test', state: 'failed', seconds: 71, info: '3 failed' }, { name: 'deploy', state: 'skipped' }], 'FAIL src/web.test.ts');
    await runCard.getByText('FAIL src/web.test.ts').waitFor({ timeout: 5_000 });
    await runCard.getByText(/ERROR · run failed/).waitFor();
    // Updated in place: still one card for the run.
    expect(await runCard.count()).toBe(1);
    // A step's state word and its duration read as one line: their text sits on one baseline.
    // (An empty inline-block's bottom edge is its line's baseline: one is put in each text for a moment.)
    const baselines = await runCard.locator('.ab-step').evaluateAll((rows) =>
      rows.map((row) => ['.ab-step-state', '.ab-step-duration'].map((sel) => {
        const probe = document.createElement('span');
        probe.style.display = 'inline-block';
        row.querySelector(sel)!.append(probe);
        const y = probe.getBoundingClientRect().bottom;
        probe.remove();
        return y;
      })));
    for (const [state, duration] of baselines.slice(0, 2)) expect(Math.abs(state! - duration!)).toBeLessThan(1);
    // The state words end on one vertical line and the durations start on another, the skipped step (no duration) included.
    const edges = await runCard.locator('.ab-step').evaluateAll((rows) =>
      rows.map((row) => [row.querySelector('.ab-step-state')!.getBoundingClientRect().right, row.querySelector('.ab-step-duration')!.getBoundingClientRect().left]),
    );
    expect(edges).toHaveLength(3);
    for (const [stateRight, durationLeft] of edges) {
      expect(Math.abs(stateRight! - edges[0]![0]!)).toBeLessThan(1);
      expect(Math.abs(durationLeft! - edges[0]![1]!)).toBeLessThan(1);
    }
    await check(page, 'feed-workflow');

    // Read through the API (another client): the badges follow without a reload.
    await feeds(page).getByRole('link', { name: /^Deploys, [1-9]\d* unread/ }).waitFor();
    const res = await fetch(`${h.config.publicUrl}/api/alerts/mark-all-read`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seed.ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channelId: seed.deploys.id }),
    });
    expect(res.status).toBe(200);
    await feeds(page).getByRole('link', { name: 'Deploys, no unread alerts' }).waitFor({ timeout: 5_000 });
    await runCard.getByRole('button', { name: 'Mark unread' }).waitFor();
    await context.close();
  });

  it('reads a chat-connected channel as a conversation with role badges, reply quotes and a members-only filter; j/k/e and ? from the keyboard', async () => {
    const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Community', icon: '💬' });
    await h.services.discordLinks.connect(chat.id, '1200000000000000001');
    const link = { channelId: chat.id, discordChannelId: '1200000000000000001' };
    const t0 = Date.now() - 60_000;
    const author = (id: string, name: string, role: 'owner' | 'bot' | 'member') => ({ id, name, bot: role === 'bot', role });
    await h.services.chatIngest.store(link, [
      { messageId: '1200000000000000010', createdAt: t0, editedAt: null, text: 'Checkout is slow since this morning', author: author('u1', 'Mia Member', 'member'), replyTo: null, attachments: [] },
      {
        messageId: '1200000000000000011',
        createdAt: t0 + 1000,
        editedAt: null,
        text: 'Looking into it now',
        author: author('u2', 'Olive Owner', 'owner'),
        replyTo: { messageId: '1200000000000000010', author: 'Mia Member', text: 'Checkout is slow since this morning' },
        attachments: [],
      },
      { messageId: '1200000000000000012', createdAt: t0 + 2000, editedAt: null, text: 'Deploy finished', author: author('u3', 'CI bot', 'bot'), replyTo: null, attachments: [] },
    ]);

    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    await feeds(page).getByRole('link', { name: /^Community \(chat\), 3 unread alerts$/ }).click();
    await page.getByRole('heading', { name: '💬 Community', level: 1 }).waitFor();
    await expect.poll(() => cards(page).count()).toBe(3);
    const reply = cards(page).filter({ hasText: 'Looking into it now' });
    await reply.getByText('owner', { exact: true }).waitFor();
    await reply.getByText('Checkout is slow since this morning').waitFor();
    await cards(page).filter({ hasText: 'Deploy finished' }).getByText('bot', { exact: true }).waitFor();
    await check(page, 'feed-chat');

    // Keyboard: j moves to the first card, j again to the second, e marks it read, k goes back.
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    const second = cards(page).nth(1);
    await expect.poll(() => second.evaluate((el) => el.classList.contains('is-current'))).toBe(true);
    await page.keyboard.press('e');
    await expect.poll(() => cards(page).nth(1).getAttribute('data-read')).toBe('true');
    await feeds(page).getByRole('link', { name: 'Community (chat), 2 unread alerts' }).waitFor();
    expect(await page.title()).toMatch(/^\(\d+\) 💬 Community · Alertbridge$/);
    await page.keyboard.press('k');
    await expect.poll(() => cards(page).first().evaluate((el) => el.classList.contains('is-current'))).toBe(true);
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'hidden' });

    // Members only: the real user feedback, without the team's and the bots' messages.
    await page.getByLabel('Members only').check();
    await page.waitForURL(/members=1/);
    await expect.poll(() => cards(page).count()).toBe(1);
    expect(await cards(page).first().textContent()).toContain('Checkout is slow since this morning');
    await context.close();
  });
});
