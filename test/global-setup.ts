import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Tests that start the service or the admin CLI as a process run the compiled entry points, the
 * ones `npm start` and `npm run admin` run. `npm ci` builds dist/ (prepare); this rebuilds it
 * when a source file is newer, so a test never runs yesterday's build. Type errors do not stop
 * the tests here (vitest runs sources regardless): `npm run typecheck` is where they fail.
 */
export default function buildDist(): void {
  const root = path.resolve(import.meta.dirname, '..');
  const stamp = path.join(root, 'dist/.tsbuildinfo');
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...fs.readdirSync(dir, { withFileTypes: true }).map((e) => {
        const p = path.join(dir, e.name);
        return e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs;
      }),
    );
  buildClient(root, newest);
  const sources = Math.max(newest(path.join(root, 'src')), fs.statSync(path.join(root, 'tsconfig.build.json')).mtimeMs, fs.statSync(path.join(root, 'tsconfig.json')).mtimeMs);
  if (sources <= built) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noEmitOnError', 'false'], {
    cwd: root,
    stdio: 'inherit',
  });
  // The dashboard's stylesheet and scripts are read next to their modules: copied as `npm run build` does.
  execFileSync(process.execPath, [path.join(root, 'scripts/copy-assets.mjs')], { cwd: root, stdio: 'inherit' });
  // tsc leaves the stamp alone when nothing changed (a touched file): mark the build as checked.
  const now = new Date();
  if (fs.existsSync(stamp)) fs.utimesSync(stamp, now, now);
}

/** The client package's bin (packages/client/dist/cli.js), spawned by test/client/cli*.test.ts: rebuilt when its sources are newer. */
function buildClient(root: string, newest: (dir: string) => number): void {
  const client = path.join(root, 'packages/client');
  const stamp = path.join(client, 'dist/.tsbuildinfo');
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  if (Math.max(newest(path.join(client, 'src')), fs.statSync(path.join(client, 'tsconfig.json')).mtimeMs) <= built) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: client, stdio: 'inherit' });
  const now = new Date();
  if (fs.existsSync(stamp)) fs.utimesSync(stamp, now, now);
}
