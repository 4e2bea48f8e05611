import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cspViolations, newPage, screenshotDir, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, postAlert, signInAs } from './helpers.js';

/**
 * The pictures of the README and docs/dashboard.md, from one realistic
 * workspace: `npm run screenshots` runs this file with SCREENSHOT_DIR set to
 * docs/screenshots; a normal test run writes them to a temp directory and
 * checks each one was written at its size. Every name gives four files:
 * desktop (1280×800) and phone (390×844), light and dark.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const post = (webhookToken: string, payload: unknown) => postAlert(h, webhookToken, payload);

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

/** What a team's feed holds on an ordinary afternoon. */
async function realisticWorkspace() {
  const run = (state: string, steps: unknown[], error?: string) =>
    post(seed.deploys.webhookToken, { title: 'Deploy web v7', source: 'GitHub Actions', workflow: { runId: 'web-7', state, steps, ...(error ? { error } : {}) } });
  for (let i = 1; i <= 6; i++) {
    await post(seed.general.webhookToken, { title: `Build #${180 + i} passed`, level: 'SUCCESS', message: `main @ ${(0xabc000 + i * 4099).toString(16)} · 3m ${10 + i}s`, source: 'GitHub Actions' });
  }
  await post(seed.general.webhookToken, {
    title: 'Disk 91% full on db-1',
    level: 'WARNING',
    source: 'Prometheus',
    message: 'The data volume grows 2 GB a day; at this rate it is full on Thursday.',
    fields: [
      { name: 'host', value: 'db-1', inline: true },
      { name: 'volume', value: '/var/lib/postgresql', inline: true },
      { name: 'used', value: '458 GB of 500 GB', inline: true },
    ],
  });
  await post(seed.deploys.webhookToken, {
    title: 'Deploy api v1.42',
    level: 'SUCCESS',
    emoji: 'rocket',
    message: 'Rolled out to all regions in 4 minutes; error rate unchanged.',
    fields: [
      { name: 'version', value: 'v1.42', inline: true },
      { name: 'region', value: 'eu-west-1', inline: true },
    ],
    linkUrl: 'https://deploy.acme.test/1042',
    linkText: 'Open deploy',
    actor: { name: 'Jane Doe', email: 'jane@acme.test', company: 'Acme' },
  });
  // The run after the deploy: it heads the Deploys channel's picture.
  await run('failed', [{ name: 'build', state: 'done', seconds: 42 }, { name: 'test', state: 'failed', seconds: 71, info: '3 failed' }, { name: 'deploy', state: 'skipped' }], 'FAIL src/checkout.test.ts › applies the coupon once');
  await post(seed.general.webhookToken, {
    title: 'Payment webhook failing',
    level: 'ERROR',
    source: 'Stripe',
    message: '14 deliveries to https://api.acme.test/stripe answered 502 in the last 10 minutes.\nCustomers see "payment pending" until it recovers.',
    linkUrl: 'https://dashboard.stripe.test/webhooks',
    linkText: 'Open in Stripe',
  });
  const chat = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Community', icon: '💬' });
  await h.services.discordLinks.connect(chat.id, '1200000000000000001');
  const t0 = Date.now() - 10 * 60_000;
  const author = (id: string, name: string, role: 'owner' | 'bot' | 'member') => ({ id, name, bot: role === 'bot', role });
  const say = (n: number, at: number, text: string, who: ReturnType<typeof author>, replyTo: { messageId: string; author: string; text: string } | null = null) => ({
    messageId: `12000000000000000${10 + n}`,
    createdAt: t0 + at,
    editedAt: null,
    text,
    author: who,
    replyTo,
    attachments: [],
  });
  const mia = author('u1', 'Mia Member', 'member');
  const olive = author('u2', 'Olive Owner', 'owner');
  await h.services.chatIngest.store({ channelId: chat.id, discordChannelId: '1200000000000000001' }, [
    say(0, 0, 'Checkout is slow since this morning', mia),
    say(1, 20_000, 'Seeing 3–4 s on the payment step from Lisbon', mia),
    say(2, 60_000, 'Looking into it now', olive, { messageId: '1200000000000000010', author: 'Mia Member', text: 'Checkout is slow since this morning' }),
    say(3, 240_000, 'Deploy api v1.42 finished', author('u3', 'CI bot', 'bot')),
    say(4, 300_000, 'Fixed: a cache was cold after the deploy. Thanks for the report!', olive),
  ]);
  await h.services.accountAuth.invitations.invite({ workspaceId: seed.ws.id, email: 'nina@acme.test', role: 'member', invitedBy: seed.owner.id });
}

describe('the documentation pictures', () => {
  it('photographs the feed, chat, workflow, empty workspace, channel settings, members and search', { timeout: 300_000 }, async () => {
    await realisticWorkspace();
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    const names: string[] = [];
    const shoot = async (name: string, opts: { fullPage?: boolean } = {}) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      names.push(name);
      await screenshots(page, name, opts);
    };

    await page.getByRole('heading', { name: /Payment webhook failing/ }).waitFor();
    await shoot('feed', { fullPage: false });
    // The compact list (one row per alert), when the feed offers it.
    const compact = page.getByRole('radio', { name: /compact/i }).or(page.getByRole('button', { name: /compact/i })).or(page.getByRole('link', { name: /compact/i }));
    if ((await compact.count()) > 0) {
      await compact.first().click();
      await page.getByRole('heading', { name: /Payment webhook failing/ }).waitFor();
      await shoot('feed-compact', { fullPage: false });
      // Back to cards for the other pictures (the choice is remembered per user).
      const cards = page.getByRole('radio', { name: /cards/i }).or(page.getByRole('button', { name: /cards/i })).or(page.getByRole('link', { name: /cards/i }));
      if ((await cards.count()) > 0) await cards.first().click();
    }

    await page.goto(`${h.config.publicUrl}/feed/c/deploys`);
    await page.getByText('FAIL src/checkout.test.ts › applies the coupon once').waitFor();
    await shoot('feed-workflow', { fullPage: false });

    await page.goto(`${h.config.publicUrl}/feed/c/community`);
    await page.getByText('Fixed: a cache was cold after the deploy. Thanks for the report!').waitFor();
    await shoot('feed-chat', { fullPage: false });

    await page.goto(`${h.config.publicUrl}/search?q=deploy`);
    await page.getByRole('heading', { name: /Deploy api v1\.42/ }).first().waitFor();
    await shoot('search', { fullPage: false });

    await page.goto(`${h.config.publicUrl}/channels/${seed.deploys.id}`);
    await page.getByRole('heading', { name: /Deploys/, level: 1 }).waitFor();
    await shoot('channel-settings');

    await page.goto(`${h.config.publicUrl}/members`);
    await page.getByText('nina@acme.test').first().waitFor();
    await shoot('members');

    await page.goto(`${h.config.publicUrl}/tokens`);
    await page.getByRole('heading', { name: 'API tokens', level: 1 }).waitFor();
    await shoot('tokens');
    expect(cspViolations(page)).toEqual([]);
    await context.close();

    // A workspace that has received nothing yet: the first screen a newcomer sees.
    const a = h.services.accounts;
    const ws = await a.createWorkspace('Nimbus');
    const newcomer = await a.createUser('ada@nimbus.test', 'Ada Newcomer');
    await a.addMember(ws.id, newcomer.id, 'owner');
    await a.createChannel({ workspaceId: ws.id, name: 'Alerts', icon: '🔔' });
    const fresh = await newPage(browser);
    await fresh.page.goto(await h.link(newcomer.id));
    await fresh.page.getByRole('button', { name: /^Sign in as / }).click();
    await fresh.page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
    await screenshots(fresh.page, 'empty-workspace', { fullPage: false });
    names.push('empty-workspace');
    await fresh.context.close();

    // Four pictures per name, at the sizes the docs show.
    for (const name of names) {
      for (const [form, width] of [['desktop', 1280], ['phone', 390]] as const) {
        for (const scheme of ['light', 'dark']) {
          const png = fs.readFileSync(path.join(screenshotDir, `${name}-${form}-${scheme}.png`));
          expect(png.readUInt32BE(16), `${name}-${form}-${scheme}`).toBe(width);
        }
      }
    }
  });
});
