import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import chromium from '@sparticuz/chromium';
import { chromium as pw, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Real Chromium for dashboard tests. `@sparticuz/chromium` ships the browser
 * inside its npm tarball, so `npm install` on a fresh clone (or CI) is enough:
 * nothing is downloaded at test time and nothing is ever skipped.
 * One browser per test file (launching is the slow part); a new context per test
 * so cookies never leak between tests.
 */
export async function launchBrowser(): Promise<Browser> {
  return pw.launch({
    executablePath: await chromium.executablePath(),
    // Without the networking flags Chromium keeps calling Google's hosts, which a closed network refuses slowly.
    // --single-process (a serverless default) makes closing a context kill the whole browser; one browser serves many contexts here.
    args: [...chromium.args.filter((a) => a !== '--single-process'), '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    headless: true,
  });
}

export async function newPage(browser: Browser, opts: { colorScheme?: 'light' | 'dark'; width?: number } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: 800 },
    colorScheme: opts.colorScheme ?? 'light',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  await withEmojiFont(context);
  const page = await context.newPage();
  page.setDefaultTimeout(5_000);
  const violations: string[] = [];
  cspLog.set(page, violations);
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) violations.push(m.text());
  });
  return { context, page };
}

const cspLog = new WeakMap<Page, string[]>();
/** Everything the page's CSP refused so far (inline scripts or styles that slipped in): should stay empty. */
export function cspViolations(page: Page): string[] {
  return cspLog.get(page) ?? [];
}

const require = createRequire(import.meta.url);
const EMOJI_CSS = require.resolve('@fontsource/noto-emoji/index.css');
const EMOJI_FILES = path.join(path.dirname(EMOJI_CSS), 'files');
const FONT_PATH = '/__test-fonts/';

/**
 * This Chromium ships almost no fonts, so channel icons (emoji) would render as
 * boxes in screenshots. The test browser (only) gets Noto Emoji (monochrome:
 * this headless build draws no COLR colour glyphs), under the family name the
 * stylesheet already lists for users' own emoji fonts. The
 * dashboard's stylesheet response is extended with @font-face rules whose files
 * are answered from node_modules, on the page's own origin, so the CSP under
 * test stays exactly as served.
 */
async function withEmojiFont(context: BrowserContext): Promise<void> {
  const faces = fs.readFileSync(EMOJI_CSS, 'utf8').replaceAll('./files/', FONT_PATH).replaceAll("'Noto Emoji'", "'Noto Color Emoji'").replace(/, url\([^)]+\.woff\) format\('woff'\)/g, '');
  await context.route(/\/assets\/app\.[0-9a-f]+\.css$/, async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, body: `${await res.text()}\n${faces}` });
  });
  await context.route(new RegExp(`${FONT_PATH}[a-z0-9-]+\\.woff2$`), (route) =>
    route.fulfill({ body: fs.readFileSync(path.join(EMOJI_FILES, path.basename(new URL(route.request().url()).pathname))), contentType: 'font/woff2' }),
  );
}

/** Serious and critical axe violations, as readable lines (an empty list passes). */
export async function axeViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Screenshots go to a temp dir (a test run leaves the tree clean); `npm run screenshots` points SCREENSHOT_DIR at docs/screenshots. */
export const screenshotDir = process.env.SCREENSHOT_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-shots-'));

/**
 * The page at desktop (1280) and phone (375) width, in light and dark: four PNGs
 * named `<name>-<desktop|phone>-<light|dark>.png`. Restores the viewport after.
 * `fullPage: false` keeps the first screenful (a long feed).
 */
export async function screenshots(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<string[]> {
  // `npm run screenshots` keeps only the README's pictures.
  const only = process.env.SCREENSHOT_NAMES?.split(',');
  if (only && !only.includes(name)) return [];
  fs.mkdirSync(screenshotDir, { recursive: true });
  const original = page.viewportSize();
  const files: string[] = [];
  for (const [form, width] of [['desktop', 1280], ['phone', 375]] as const) {
    await page.setViewportSize({ width, height: form === 'phone' ? 812 : 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      // Subsets load lazily (unicode-range): load every emoji face so no glyph is caught mid-download.
      await page.evaluate(() => Promise.allSettled([...document.fonts].filter((f) => f.family.includes('Emoji')).map((f) => f.load())));
      const file = path.join(screenshotDir, `${name}-${form}-${scheme}.png`);
      await page.screenshot({ path: file, fullPage: opts.fullPage ?? true });
      files.push(file);
    }
  }
  if (original) await page.setViewportSize(original);
  await page.emulateMedia({ colorScheme: 'light' });
  return files;
}
