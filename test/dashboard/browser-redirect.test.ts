import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness } from './helpers.js';

/**
 * The open redirect as Chromium follows it: `next=/%09/evil.example` used to come back as
 * `Location: /<TAB>/evil.example`, which the browser reads as `//evil.example` and leaves the site.
 * evil.example is answered by the test itself (never the network) so a visit is seen, not timed out.
 */
const PASSWORD = 'correct horse battery';
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
browserSuite((s) => ({ browser, h, seed } = s));

async function watchedPage(): Promise<{ context: BrowserContext; page: Page; visitedEvil: string[] }> {
  const { context, page } = await newPage(browser);
  const visitedEvil: string[] = [];
  await context.route((url) => url.hostname.endsWith('evil.example'), async (route) => {
    visitedEvil.push(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Evil</h1>' });
  });
  return { context, page, visitedEvil };
}

const NEXTS = ['/%09/evil.example', '/%0a/evil.example', '/%5Cevil.example', '%2F%2Fevil.example'];

describe('sign-in next in Chromium', () => {
  it('signed in, /sign-in?next=/%09/evil.example sends the browser on to the service’s own origin', async () => {
    const { context, page, visitedEvil } = await watchedPage();
    try {
      await page.goto(await h.link(seed.owner.id));
      await page.getByRole('button', { name: /^Sign in as / }).click();
      await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
      for (const next of NEXTS) {
        await page.goto(`${h.config.publicUrl}/sign-in?next=${next}`);
        expect(new URL(page.url()).origin, next).toBe(h.origin);
        await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
      }
      expect(visitedEvil).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signing in with a password from /sign-in?next=/%09/evil.example lands on the service’s own start page', async () => {
    await h.services.accountAuth.passwords.set(seed.owner.id, PASSWORD);
    const { context, page, visitedEvil } = await watchedPage();
    try {
      for (const next of NEXTS) {
        await context.clearCookies();
        await page.goto(`${h.config.publicUrl}/sign-in?next=${next}`);
        await page.getByLabel('E-mail', { exact: true }).fill('owner@acme.test');
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
        expect(new URL(page.url()).origin, next).toBe(h.origin);
      }
      expect(visitedEvil).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
