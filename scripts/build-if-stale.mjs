// `npm start` loads this first (`node --import ./scripts/build-if-stale.mjs dist/main.js`: one process,
// no npm pre-script with its own shell and node start). It builds only when a build input changed since
// the last successful build (scripts/build-stamp.mjs): comparing mtimes over src/ takes milliseconds,
// where running tsc on a current build took 5–7 s of every restart. `npm install` (prepare) and
// `npm run build` always build; production runs `node dist/main.js` (docs/operations.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newestInputMtimeMs, readStamp, root } from './build-stamp.mjs';

const stamp = readStamp();
const current = stamp !== undefined && fs.existsSync(path.join(root, 'dist', 'main.js')) && newestInputMtimeMs() <= stamp;
if (!current) {
  process.stderr.write('alertbridge: sources changed since the last build; building dist/ first\n');
  const npm = process.env.npm_execpath;
  const r = npm
    ? spawnSync(process.execPath, [npm, 'run', '-s', 'build'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
