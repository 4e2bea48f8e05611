import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
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
  const executablePath = await chromium.executablePath();
  return pw.launch({
    executablePath,
    env: { ...process.env, ...installEmojiFont() },
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
const EMOJI_FILES = path.join(path.dirname(require.resolve('@fontsource/noto-emoji/index.css')), 'files');

/**
 * This Chromium ships one font (Open Sans), so emoji (channel icons, alert
 * emoji) would render as boxes in screenshots. The test browser (only) gets
 * Noto Emoji (monochrome: this headless build draws no colour glyphs) as a
 * system font: its WOFF files are converted to TrueType into a directory the
 * browser's fontconfig reads besides the machine's own fonts (FONTCONFIG_FILE
 * for the browser process only), so font fallback finds them for every emoji
 * whatever the page's font stack says, bold text included. The
 * pages and their CSP are served exactly as users get them.
 */
function installEmojiFont(): Record<string, string> {
  const dir = path.join(os.tmpdir(), 'alertbridge-test-fonts');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(EMOJI_FILES)) {
    const target = path.join(dir, f.replace(/\.woff$/, '.ttf'));
    if (!/-400-normal\.woff$/.test(f) || fs.existsSync(target)) continue;
    fs.writeFileSync(target, woffToSfnt(fs.readFileSync(path.join(EMOJI_FILES, f))));
  }
  // The machine's own configuration (its fonts stay as they are), plus this directory.
  const conf = path.join(dir, 'fonts.conf');
  fs.writeFileSync(
    conf,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${dir}</dir>\n  <cachedir>${path.join(dir, 'cache')}</cachedir>\n</fontconfig>\n`,
  );
  return { FONTCONFIG_FILE: conf };
}

/** WOFF 1.0 (a zlib-compressed sfnt, W3C WOFF §4–5) back to the TrueType file fontconfig reads. */
function woffToSfnt(woff: Buffer): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') throw new Error('not a WOFF 1.0 file');
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + i * 20;
    const [offset, compLength, origLength] = [woff.readUInt32BE(at + 4), woff.readUInt32BE(at + 8), woff.readUInt32BE(at + 12)];
    const raw = woff.subarray(offset, offset + compLength);
    return { tag: woff.subarray(at, at + 4), checksum: woff.readUInt32BE(at + 16), data: compLength < origLength ? zlib.inflateSync(raw) : raw };
  });
  const head = Buffer.alloc(12 + numTables * 16);
  head.writeUInt32BE(woff.readUInt32BE(4), 0); // flavor: the sfnt version
  head.writeUInt16BE(numTables, 4);
  const log2 = Math.floor(Math.log2(numTables));
  head.writeUInt16BE(16 * 2 ** log2, 6);
  head.writeUInt16BE(log2, 8);
  head.writeUInt16BE(numTables * 16 - 16 * 2 ** log2, 10);
  const body: Buffer[] = [];
  let offset = head.length;
  tables.forEach((t, i) => {
    const at = 12 + i * 16;
    t.tag.copy(head, at);
    head.writeUInt32BE(t.checksum, at + 4);
    head.writeUInt32BE(offset, at + 8);
    head.writeUInt32BE(t.data.length, at + 12);
    const padded = Buffer.alloc((t.data.length + 3) & ~3);
    t.data.copy(padded);
    body.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([head, ...body]);
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
 * The page at desktop (1280×800) and phone (390×844) size, in light and dark: four PNGs
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
  for (const [form, width, height] of [['desktop', 1280, 800], ['phone', 390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const file = path.join(screenshotDir, `${name}-${form}-${scheme}.png`);
      await page.screenshot({ path: file, fullPage: opts.fullPage ?? true });
      files.push(file);
    }
  }
  if (original) await page.setViewportSize(original);
  await page.emulateMedia({ colorScheme: 'light' });
  return files;
}
