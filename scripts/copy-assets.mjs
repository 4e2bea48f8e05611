// Part of `npm run build`: tsc emits only JavaScript, but the dashboard reads its own stylesheet
// and scripts (and the alert card's stylesheet) next to its modules at run time, in src/ under
// the tests and in dist/ under `npm start`. Every non-TypeScript file under src/ that a module
// reads is copied to the same place under dist/.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const ASSET = /\.(css|js|svg|png|woff2)$/;

function copyAssets(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) copyAssets(src, dst);
    else if (ASSET.test(entry.name)) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(src, dst);
    }
  }
}

copyAssets(path.join(root, 'src'), path.join(root, 'dist'));
