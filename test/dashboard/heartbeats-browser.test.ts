import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { axeViolations, cspViolations, launchBrowser, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { signInAs, startDashboard, type DashHarness } from './helpers.js';

/**
 * The Heartbeats pages in a real Chromium, on an injected clock: a check created through the form,
 * pinged, seen going late and then down without a reload (the table refreshes itself), its alert in
 * the feed; every page axe-clean, nothing refused by the CSP, screenshots at both sizes and schemes.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
const clock = new ManualClock(Date.UTC(2026, 0, 5, 8, 0));

beforeAll(async () => {
  [browser, h] = await Promise.all([launchBrowser(), startDashboard({ overrides: { clock } })]);
  seed = await seedWorkspace(h.services);
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('Heartbeats pages', () => {
  it('a check goes late and down live, and its alert shows in the feed', { timeout: 90_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signInAs(h, page, seed.owner.id);
    await page.getByRole('link', { name: 'Heartbeats' }).first().click();
    await page.getByRole('heading', { name: 'Heartbeats', level: 1 }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // A refused form keeps what was typed and says why beside the field.
    await page.getByLabel('Name').fill('Nightly backup');
    await page.getByLabel('Period').fill('90 minutes');
    await page.getByRole('button', { name: 'Create check' }).click();
    await page.getByText('Period must be a duration').waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('Nightly backup');

    await page.getByLabel('Period').fill('1h');
    await page.getByLabel('Grace').fill('10m');
    await page.getByRole('button', { name: 'Create check' }).click();
    await page.getByRole('heading', { name: 'Nightly backup', level: 1 }).waitFor();
    await page.getByText('Check created.').waitFor();
    const url = await page.getByLabel('Ping URL', { exact: true }).inputValue();
    expect(url).toMatch(/\/ping\/[0-9a-f-]{36}$/);
    expect(await page.getByLabel('Crontab line').inputValue()).toContain(`curl -fsS -m 10 --retry 5 ${url}`);

    expect((await fetch(`${url}/start`)).status).toBe(200);
    clock.advance(90_000);
    expect((await fetch(url, { method: 'POST', body: 'dump: 12 tables, 3.1 GB' })).status).toBe(200);
    await page.reload();
    await page.getByText('dump: 12 tables, 3.1 GB').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'heartbeat-check');

    await page.goto(`${h.config.publicUrl}/heartbeats`);
    const row = page.locator('tr', { has: page.getByRole('link', { name: 'Nightly backup' }) });
    await row.getByText('Up', { exact: true }).waitFor();
    await expect(row.getByRole('img').getAttribute('aria-label')).resolves.toBe('Last 2 pings: 1 success, 1 start');
    expect(await row.textContent()).toContain('90 s');

    // Late, then down, without a reload.
    clock.advance(60 * 60_000);
    await row.getByText('Late', { exact: true }).waitFor({ timeout: 12_000 });
    await screenshots(page, 'heartbeats');
    clock.advance(10 * 60_000);
    expect(await h.services.heartbeats.timer.pass()).toEqual({ wentDown: 1, alertsWritten: 1 });
    await row.getByText('Down', { exact: true }).waitFor({ timeout: 12_000 });
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${h.config.publicUrl}/feed`);
    await page.getByText('Nightly backup is down').first().waitFor();
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('a member sees the checks of their channels, without the create form or the buttons', async () => {
    await h.services.heartbeats.checks.create({ channelId: seed.secret.id, name: 'Key rotation', period: '1d', grace: '1h' });
    const { context, page } = await newPage(browser, { colorScheme: 'dark' });
    await signInAs(h, page, seed.member.id);
    await page.goto(`${h.config.publicUrl}/heartbeats`);
    await page.getByRole('link', { name: 'Nightly backup' }).waitFor();
    expect(await page.getByRole('link', { name: 'Key rotation' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create check' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Nightly backup' }).click();
    await page.getByRole('heading', { name: 'Ping history' }).waitFor();
    expect(await page.getByRole('button', { name: 'Pause' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'heartbeat-check-member');

    // The channel's settings list its checks.
    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}`);
    const section = page.getByRole('region', { name: 'Heartbeat checks' });
    await section.getByRole('link', { name: 'Nightly backup' }).waitFor();
    expect(await section.textContent()).toContain('(down)');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
