import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { cspViolations, newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness } from './helpers.js';

/**
 * Post/Redirect/Get in a real Chromium for the forms browser-forms.test.ts does not press: each is
 * filled and submitted as a person does, shows its notice once, and a reload of the page it landed
 * on posts nothing and leaves exactly one effect (audit entry or stored row).
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
browserSuite((s) => ({ browser, h, seed } = s));

const count = async (sql: string, params: unknown[] = []) => (await h.query<{ n: number }>(sql, params))[0]!.n;
const audited = (action: string) => count('SELECT count(*) AS n FROM audit_log WHERE action = ?', [action]);

/** Presses the button, waits for the notice, reloads: no POST, the notice gone, `effect` still 1. */
async function pressAndReload(page: Page, button: string, notice: string | RegExp, effect: () => Promise<number>) {
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.getByText(notice).first().waitFor().catch(async (err: unknown) => {
    throw new Error(`${button}: ${String(err)}\n${(await page.textContent('main'))?.replace(/\s+/g, ' ').slice(0, 1500)}`);
  });
  const posts: string[] = [];
  const seen = (r: { method(): string; url(): string }) => void (r.method() === 'POST' && posts.push(r.url()));
  page.on('request', seen);
  await page.reload();
  await page.waitForLoadState('load');
  page.off('request', seen);
  expect(posts, button).toEqual([]);
  expect(await page.getByText(notice).count(), `${button}: the notice is shown once`).toBe(0);
  expect(await effect(), button).toBe(1);
}

describe('every other form is Post/Redirect/Get in Chromium', () => {
  it('channel settings, silences, heartbeats and the profile: one effect each, whatever the reloads', { timeout: 120_000 }, async () => {
    const { context, page } = await newPage(browser);
    await page.goto(await h.link(seed.owner.id));
    await page.getByRole('button', { name: /^Sign in as / }).click();
    await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();

    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}`);
    await page.getByLabel('Signing secret', { exact: true }).fill('a-github-secret-of-32-characters');
    await pressAndReload(page, 'Set signing secret', 'Signing secret of “General” saved.', () => audited('channel.signing-secret-set'));
    await page.getByLabel('Discord channel id').fill('112233445566778899');
    await pressAndReload(page, 'Connect to Discord', /now mirrors Discord channel 112233445566778899/, () => audited('channel.discord-connected'));
    const escalation = page.getByRole('region', { name: 'Escalation' });
    await escalation.getByLabel('Escalate alerts at').selectOption('WARNING');
    await escalation.getByLabel('First reminder after').fill('15m');
    await pressAndReload(page, 'Turn on escalation', 'Escalation of “General” saved.', () => audited('channel.escalation-set'));

    await page.goto(`${h.config.publicUrl}/silences`);
    await page.getByLabel('For', { exact: true }).fill('2h');
    await page.getByLabel('Comment').fill('Database upgrade');
    await pressAndReload(page, 'Create silence', /Silence created/, () => audited('silence.created'));

    await page.goto(`${h.config.publicUrl}/heartbeats`);
    // General mirrors Discord now (above), and a chat channel takes no checks.
    await page.getByLabel('Channel', { exact: true }).selectOption(seed.deploys.id);
    await page.getByLabel('Name', { exact: true }).fill('Nightly backup');
    await page.getByLabel('Period').fill('1d');
    await pressAndReload(page, 'Create check', 'Check created.', () => audited('heartbeat.created'));

    await page.goto(`${h.config.publicUrl}/profile`);
    await page.getByLabel('Your name').fill('Olive Renamed');
    await pressAndReload(page, 'Save name', 'Name saved.', () => count("SELECT count(*) AS n FROM users WHERE name = 'Olive Renamed'"));
    await page.getByLabel('From').fill('22:00');
    await page.getByLabel('Until').fill('07:00');
    await page.getByLabel('Time zone', { exact: true }).fill('Europe/Berlin');
    await pressAndReload(page, 'Save quiet hours', 'Quiet hours saved.', () => count('SELECT count(*) AS n FROM quiet_hours WHERE user_id = ?', [seed.owner.id]));

    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });
});
