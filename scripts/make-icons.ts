// Renders the dashboard's app icons (src/dashboard/icons/*.png) from icon.svg in the test
// Chromium: run `npx tsx scripts/make-icons.ts` after changing the SVG, and commit the PNGs.
// "any" icons keep the rounded plate; the maskable one fills the square and keeps the bell
// inside the central 80 % circle every launcher mask leaves visible.
import fs from 'node:fs';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import { chromium as pw } from 'playwright-core';

const dir = path.resolve(import.meta.dirname, '../src/dashboard/icons');
const svg = fs.readFileSync(path.join(dir, 'icon.svg'), 'utf8');
const maskable = svg.replace('rx="112"', 'rx="0"').replace('<g id="bell" fill="#ffffff">', '<g id="bell" fill="#ffffff" transform="translate(51 51) scale(0.8)">');

const icons: { file: string; size: number; source: string }[] = [
  { file: 'icon-192.png', size: 192, source: svg },
  { file: 'icon-512.png', size: 512, source: svg },
  { file: 'icon-maskable-512.png', size: 512, source: maskable },
  // iOS draws its own rounded corners and shows transparency as black: a full square.
  { file: 'apple-touch-icon.png', size: 180, source: maskable },
];

const browser = await pw.launch({
  executablePath: await chromium.executablePath(),
  args: [...chromium.args.filter((a) => a !== '--single-process'), '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  headless: true,
});
try {
  for (const icon of icons) {
    const page = await browser.newPage({ viewport: { width: icon.size, height: icon.size } });
    const sized = icon.source.replace('<svg ', `<svg width="${icon.size}" height="${icon.size}" `);
    await page.setContent(`<html><body style="margin:0;background:transparent">${sized}</body></html>`);
    await page.screenshot({ path: path.join(dir, icon.file), omitBackground: true, clip: { x: 0, y: 0, width: icon.size, height: icon.size } });
    await page.close();
  }
} finally {
  await browser.close();
}
