import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage } from '../helpers/browser.js';
import { AlertCard, toCardModel } from '../../src/alert-card/index.js';
import { renderHtml } from '../../src/lib/html.js';
import { chatAlertView, standardAlertView } from '../helpers/alert-views.js';

/** The card's stylesheet in a real Chromium: what the badges look like in each theme, as a viewer sees them. */
const css = readFileSync(new URL('../../src/alert-card/alert-card.css', import.meta.url), 'utf8');
const cards = [
  renderHtml(AlertCard({ card: toCardModel({ ...standardAlertView, level: 'ERROR' }), styling: 'classes' })),
  renderHtml(AlertCard({ card: toCardModel({ ...standardAlertView, level: 'WARNING', workflow: { runId: 'r', state: 'running', steps: [], error: null } }), styling: 'classes' })),
  renderHtml(AlertCard({ card: toCardModel(chatAlertView({ author: { id: '1', name: 'Ana', bot: true, role: 'bot' } })), styling: 'classes' })),
].join('');

/** Relative luminance (WCAG) of a computed `rgb(…)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = rgb.match(/\d+(\.\d+)?/g)!.slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe('badges in both themes', () => {
  it.each([
    ['system dark', 'dark', 'dark', null],
    ['toggle dark on a light system', 'dark', 'light', 'dark'],
    ['toggle light on a dark system', 'light', 'dark', 'light'],
    ['system light', 'light', 'light', null],
  ] as const)('%s: level, run and role badges are %s and legible', async (_name, expected, scheme, toggle) => {
    const { context, page } = await newPage(browser, { colorScheme: scheme });
    await page.setContent(`<!doctype html><html${toggle ? ` data-theme="${toggle}"` : ''}><head><style>${css}</style></head><body>${cards}</body></html>`);
    const badges = await page.locator('.ab-badge, .ab-role-badge').evaluateAll((els) => els.map((el) => ({ bg: getComputedStyle(el).backgroundColor, fg: getComputedStyle(el).color })));
    expect(badges).toHaveLength(3);
    for (const b of badges) {
      const bg = luminance(b.bg);
      // A dark theme's badge is dark (the old pale tint measured above 0.8); a light theme's stays pale.
      if (expected === 'dark') expect(bg).toBeLessThan(0.1);
      else expect(bg).toBeGreaterThan(0.8);
      expect(contrast(bg, luminance(b.fg))).toBeGreaterThanOrEqual(4.5);
    }
    await context.close();
  });
});
