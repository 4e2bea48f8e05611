import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { githubSignature } from '../../src/domain/formats/github-body.js';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, sqliteOf, type DashHarness } from './helpers.js';

/**
 * The GitHub signing secret in a channel's settings, in a real Chromium: set,
 * replace and clear it; the page says only "set" or "not set", and GitHub's
 * path enforces what the page saved.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

async function signInTo(page: Page, userId: string, path: string) {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
  await page.goto(`${h.config.publicUrl}${path}`);
}

const BODY = JSON.stringify({ action: 'opened', issue: { number: 7, title: 'Checkout broken', html_url: 'https://github.com/acme/shop/issues/7' }, repository: { full_name: 'acme/shop' } });
const deliver = (signature?: string) =>
  fetch(`${h.config.publicUrl}/api/webhook/${seed.deploys.webhookToken}/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'issues', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    body: BODY,
  }).then((r) => r.status);

describe('channel settings: GitHub signing secret', () => {
  it('an owner sets, replaces and removes it; it is never shown back; /github enforces it', { timeout: 90_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signInTo(page, seed.owner.id, `/channels/${seed.deploys.id}`);
    const section = page.getByRole('region', { name: 'GitHub signing secret' });
    await section.waitFor();
    expect(await section.getByText('Signing secret: not set').isVisible()).toBe(true);

    // Too short: the field's error, and the typed value is not rendered back.
    await section.getByLabel('Signing secret', { exact: true }).fill('too-short');
    await section.getByRole('button', { name: 'Set signing secret' }).click();
    await page.getByText('Use 16 to 256 characters').waitFor();
    expect(await page.content()).not.toContain('too-short');
    expect(await page.getByRole('region', { name: 'GitHub signing secret' }).getByLabel('Signing secret', { exact: true }).inputValue()).toBe('');

    const first = 'first-secret-0123456789';
    await page.getByRole('region', { name: 'GitHub signing secret' }).getByLabel('Signing secret', { exact: true }).fill(first);
    await page.getByRole('button', { name: 'Set signing secret' }).click();
    await page.getByText('Signing secret of “Deploys” saved.').waitFor();
    expect(await page.getByText('Signing secret: set').isVisible()).toBe(true);
    expect(await page.content()).not.toContain(first);
    expect(await axeViolations(page)).toEqual([]);
    expect(cspViolations(page)).toEqual([]);
    await screenshots(page, 'channel-signing-secret', { fullPage: true });
    expect([await deliver(), await deliver(githubSignature(BODY, first))]).toEqual([401, 200]);

    const second = 'second-secret-9876543210';
    await page.getByLabel('New signing secret').fill(second);
    await page.getByRole('button', { name: 'Replace signing secret' }).click();
    await page.getByText('Signing secret of “Deploys” replaced.').waitFor();
    expect(await page.content()).not.toContain(second);
    expect([await deliver(githubSignature(BODY, first)), await deliver(githubSignature(BODY, second))]).toEqual([401, 200]);
    // Stored as the CLI stores it.
    expect(sqliteOf(h).db.sqlite.prepare('SELECT signing_secret FROM channels WHERE id = ?').pluck().get(seed.deploys.id)).toBe(second);

    await page.getByRole('button', { name: 'Remove signing secret' }).click();
    // Asked first, naming the channel.
    const ask = page.getByRole('dialog', { name: 'Remove the signing secret of “Deploys”?' });
    await ask.getByRole('button', { name: 'Remove signing secret' }).click();
    await page.getByText('Signing secret of “Deploys” removed.').waitFor();
    expect(await page.getByText('Signing secret: not set').isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    expect(await deliver()).toBe(200);
    await context.close();
  });

  it('a member sees no signing-secret section and cannot post to it', async () => {
    const { context, page } = await newPage(browser);
    await signInTo(page, seed.member.id, `/channels/${seed.general.id}`);
    await page.getByRole('heading', { name: /General/, level: 1 }).waitFor();
    expect(await page.getByRole('region', { name: 'GitHub signing secret' }).count()).toBe(0);
    const status = await page.evaluate(async (id) => {
      const csrf = document.querySelector<HTMLInputElement>('input[name="_csrf"]')?.value ?? '';
      const res = await fetch(`/channels/${id}/signing-secret`, { method: 'POST', body: new URLSearchParams({ _csrf: csrf, signing_secret: 'member-secret-0123456789' }) });
      return res.status;
    }, seed.general.id);
    expect(status).toBe(403);
    expect(sqliteOf(h).db.sqlite.prepare('SELECT signing_secret FROM channels WHERE id = ?').pluck().get(seed.general.id)).toBeNull();
    await context.close();
  });
});
