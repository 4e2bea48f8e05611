import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cspViolations, newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, postAlert, signInAs } from './helpers.js';

/**
 * The dashboard on a phone (390×844) and as an installed app: the compact bar,
 * its menu and the channel drawer; the manifest and its icons; the last feed
 * shown by the service worker when a reload finds no network.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const post = (webhookToken: string, payload: unknown) => postAlert(h, webhookToken, payload);

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

async function phonePage() {
  const opened = await newPage(browser, { width: 390 });
  await opened.page.setViewportSize({ width: 390, height: 844 });
  // Three page loads per step on a shared two-core machine: more room than the 5 s default.
  opened.page.setDefaultTimeout(10_000);
  return opened;
}

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('the dashboard on a phone', () => {
  it('shows the first alert on the first screen, with sections in a menu and channels in a drawer', async () => {
    for (let i = 1; i <= 40; i++) await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: `Service ${i}`, icon: '🧪' });
    await post(seed.deploys.webhookToken, { title: 'Deploy api v1.42', level: 'SUCCESS', message: 'Rolled out to eu-west-1 in 4 minutes.' });
    const { context, page } = await phonePage();
    await signIn(page, seed.owner.id);

    // The first card's title is on screen without scrolling, even with 40 channels.
    const title = page.getByRole('heading', { name: /Deploy api v1\.42/ });
    const box = (await title.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    // The bar is compact: the sections and the channel list are out of the way until asked for.
    expect(await page.getByRole('navigation', { name: 'Sections' }).isVisible()).toBe(false);
    expect(await page.getByRole('navigation', { name: 'Feeds' }).isVisible()).toBe(false);
    const bar = (await page.locator('header.top').boundingBox())!;
    expect(bar.height).toBeLessThanOrEqual(56);

    // The channel drawer: opens from its button, closes with Escape, and its links lead to the channel.
    await page.getByRole('button', { name: 'Channels' }).click();
    const feeds = page.getByRole('navigation', { name: 'Feeds' });
    await feeds.waitFor();
    await page.keyboard.press('Escape');
    await feeds.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Channels' }).click();
    await feeds.getByRole('link', { name: /^Deploys/ }).click();
    await page.getByRole('heading', { name: '🚀 Deploys', level: 1 }).waitFor();

    // The menu: the sections, the theme and sign-out.
    await page.getByRole('button', { name: 'Menu' }).click();
    const sections = page.getByRole('navigation', { name: 'Sections' });
    await sections.waitFor();
    await page.getByRole('button', { name: 'Dark theme' }).waitFor();
    await sections.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    expect(await sections.isVisible()).toBe(false);

    // The search icon opens the search page, whose box is then in sight.
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByRole('searchbox', { name: 'Search alerts' }).waitFor();
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('is installable: a manifest with a start URL, theme colour and real PNG icons', async () => {
    const { context, page } = await phonePage();
    await signIn(page, seed.member.id);
    const href = await page.locator('link[rel="manifest"]').getAttribute('href');
    const res = await fetch(new URL(href!, h.config.publicUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const manifest = (await res.json()) as { start_url: string; display: string; theme_color: string; icons: { src: string; sizes: string; purpose: string }[] };
    expect(manifest).toMatchObject({ start_url: '/feed', display: 'standalone', theme_color: expect.stringMatching(/^#[0-9a-f]{6}$/) });
    expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose}`)).toEqual(['192x192 any', '512x512 any', '512x512 maskable']);
    for (const icon of manifest.icons) {
      const png = await fetch(new URL(icon.src, h.config.publicUrl));
      expect(png.headers.get('content-type')).toBe('image/png');
      const [w, hgt] = icon.sizes.split('x').map(Number);
      expect(pngSize(Buffer.from(await png.arrayBuffer()))).toEqual({ width: w, height: hgt });
    }
    // The browser reads the same manifest under the page's CSP.
    expect(await page.evaluate(async (u) => (await fetch(u)).ok, href!)).toBe(true);
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('shows the last feed with an offline notice when a reload finds no network, and forgets it on sign-out', async () => {
    await post(seed.general.webhookToken, { title: 'Disk 91% full on db-1', level: 'WARNING' });
    const { context, page } = await phonePage();
    await signIn(page, seed.member.id);
    // The worker takes the page over, then keeps the next feed it sees.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 10_000 });
    await page.reload();
    await page.getByRole('heading', { name: /Disk 91% full on db-1/ }).waitFor();
    const notice = page.getByText('You are offline.');
    expect(await notice.isVisible()).toBe(false);
    await page.waitForFunction(async () => Boolean(await (await caches.open('alertbridge-shell-v1')).match('/__last-feed')), undefined, { timeout: 10_000 });

    await context.setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: /Disk 91% full on db-1/ }).waitFor();
    await notice.waitFor();
    // Styled as online: the stylesheet came from the worker's copy too.
    expect(await page.locator('header.top').evaluate((el) => getComputedStyle(el).display)).toBe('flex');

    // Back online, the real page returns by itself and the notice goes.
    await context.setOffline(false);
    await notice.waitFor({ state: 'hidden', timeout: 15_000 });

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Alertbridge' }).waitFor();
    expect(await page.evaluate(async () => Boolean(await (await caches.open('alertbridge-shell-v1')).match('/__last-feed')))).toBe(false);
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });
});
