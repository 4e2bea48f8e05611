import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_KINDS } from '../../src/domain/routes/route-kinds.js';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { axeViolations, cspViolations, launchBrowser, newPage, screenshotDir, screenshots } from '../helpers/browser.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { postAlert, signInAs, startDashboard, type DashHarness } from '../dashboard/helpers.js';

/**
 * Routes in a real Chromium (issue 27): a person adds a signed webhook route, copies its secret
 * (shown once), tests it, sees a paused route's reason and resumes it, and deletes it through a
 * dialog naming it; an alert's card leads to its delivery log. The pictures of docs/routes.md
 * come from here (`npm run screenshots`): each kind's preview, and the pages at both widths and
 * in both themes.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let worker: RouteWorker;
let receiver: Awaited<ReturnType<typeof startFakeReceiver>>;

beforeAll(async () => {
  [browser, h] = await Promise.all([launchBrowser(), startDashboard({ env: { ROUTES_ALLOW_PRIVATE: '1' } })]);
  seed = await seedWorkspace(h.services);
  receiver = await startFakeReceiver((req) => (req.path.startsWith('/down') ? { status: 503, body: '{"error":"upstream down"}' } : { status: 200, body: '{"ok":true}' }));
  worker = startRouteWorker(h.services);
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await browser?.close();
  await h?.close();
});

async function confirm(page: Page, button: { name: string | RegExp }, question: string | RegExp, action: string) {
  await page.getByRole('button', button).click();
  const dialog = page.getByRole('dialog', { name: question });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: action }).click();
}

describe('routes in the dashboard', () => {
  it('adds, tests, resumes and deletes a route; its previews and pages look right', { timeout: 300_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signInAs(h, page, seed.owner.id);
    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}`);
    await page.getByRole('link', { name: 'Add a route' }).click();
    await page.getByRole('link', { name: 'Signed webhook' }).click();
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hook`);
    await page.getByLabel('Forward').selectOption('WARNING');
    await page.getByRole('button', { name: 'Add route' }).click();

    // The secret, once: copied into the receiver, gone on reload.
    const secretBox = page.getByRole('textbox', { name: 'Signing secret', exact: true });
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.reload();
    await page.getByRole('heading', { name: 'Test' }).waitFor();
    expect(await page.content()).not.toContain(secret);

    await page.getByRole('button', { name: 'Send a test alert' }).click();
    await page.locator('#test-answer').getByText('Delivered').waitFor();
    expect(await page.locator('#test-answer').innerText()).toContain('HTTP 200');
    expect(receiver.received.at(-1)!.headers['webhook-signature']).toMatch(/^v1,/);

    // A failing route, paused by the worker after an hour: the reason and Resume, in settings.
    const { id: failing } = await h.services.routes.routes.create(seed.general.id, 'slack', { url: `${receiver.url}/down/services/T1/B2/XXXXZZZZ` }, { minLevel: 'ERROR' });
    await h.services.routes.outbox.pauseRoute(failing, 'paused after failing for an hour: HTTP 503', Date.now());
    await h.services.routes.routes.create(seed.general.id, 'discord', { url: `${receiver.url}/api/webhooks/1/abcdWXYZ` }, { events: ['alert.opened', 'alert.updated', 'alert.acknowledged', 'alert.resolved'] });
    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}#routes-title`);
    await page.getByText('paused after failing for an hour: HTTP 503').waitFor();
    await screenshots(page, 'routes-settings');

    // Each kind's form and preview; the preview alone is the picture docs/routes.md shows for the kind.
    for (const kind of ROUTE_KINDS) {
      await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}/routes/new?kind=${kind}`);
      const preview = page.locator('.route-preview');
      await preview.waitFor();
      if (kind === 'slack') await screenshots(page, 'route-new');
      await page.setViewportSize({ width: 1280, height: 800 });
      fs.mkdirSync(screenshotDir, { recursive: true });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await preview.locator('.pv').screenshot({ path: path.join(screenshotDir, `route-preview-${kind}-${scheme}.png`) });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    }

    // A refused form: the error beside its field, the typed URL kept.
    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}/routes/new?kind=slack`);
    await page.getByLabel('Incoming webhook URL').fill('hooks.slack.com/services/x');
    await page.getByRole('button', { name: 'Add route' }).click();
    await page.locator('#f-url-error').getByText('Is not a URL').waitFor();
    expect(await page.getByLabel('Incoming webhook URL').getAttribute('aria-invalid')).toBe('true');

    await page.goto(`${h.config.publicUrl}/channels/${seed.general.id}#routes-title`);
    await page.getByRole('button', { name: /^Resume Slack → / }).click();
    await page.getByText(/resumed: its waiting deliveries go out now/).waitFor();
    expect((await h.services.routes.routes.get(failing)).state).toBe('active');

    // The route's own page, then delete it through the dialog that names it.
    await page.getByRole('link', { name: /^Slack → / }).click();
    await page.getByRole('heading', { name: 'Preview' }).waitFor();
    await screenshots(page, 'route-page');
    await confirm(page, { name: /^Delete Slack → / }, /^Delete the route Slack → .*XXXX…?|^Delete the route Slack → /, 'Delete route');
    await page.getByText(/deleted, with its deliveries/).waitFor();
    expect((await h.services.routes.routes.list(seed.general.id)).map((r) => r.kind).sort()).toEqual(['discord', 'webhook']);
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('leads from an alert’s card to its delivery log', { timeout: 120_000 }, async () => {
    await postAlert(h, seed.general.webhookToken, { title: 'Payment webhook failing', level: 'ERROR', message: '14 deliveries answered 502.' });
    await eventually(async () => receiver.received.some((r) => r.body.includes('Payment webhook failing')) || undefined, 'the route deliveries');
    const { context, page } = await newPage(browser);
    await signInAs(h, page, seed.owner.id);
    await screenshots(page, 'feed-deliveries-button', { fullPage: false });
    await page.getByRole('link', { name: 'Deliveries of “Payment webhook failing”' }).click();
    await page.getByRole('heading', { name: 'Deliveries of “Payment webhook failing”' }).waitFor();
    await eventually(async () => {
      await page.reload();
      return (await page.locator('tbody tr').count()) >= 2 && !(await page.content()).includes('>waiting<') ? true : undefined;
    }, 'both routes delivered');
    const rows = await page.locator('tbody tr').allInnerTexts();
    expect(rows.some((r) => r.includes('Signed webhook') && r.includes('delivered') && r.includes('HTTP 200'))).toBe(true);
    expect(rows.some((r) => r.includes('Discord') && r.includes('delivered'))).toBe(true);
    await screenshots(page, 'alert-deliveries');
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });
});
