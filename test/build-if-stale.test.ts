import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `npm start`'s staleness check (scripts/build-if-stale.mjs) on a small stand-in project (BUILD_ROOT):
 * its `build` script counts its runs and then writes the stamp exactly as the real build does.
 */
const scripts = path.resolve(import.meta.dirname, '../scripts');
let root: string;
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function project(buildSucceeds = true) {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'alertbridge-stale-'));
  fs.mkdirSync(path.join(root, 'src/deep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/main.ts'), 'export {};\n');
  fs.writeFileSync(path.join(root, 'src/deep/a.ts'), 'export {};\n');
  const stamp = `node ${JSON.stringify(path.join(scripts, 'build-stamp.mjs'))}`;
  const build = buildSucceeds
    ? `${stamp} begin && node -e "const fs=require('fs');fs.appendFileSync('builds','x');fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/main.js','')" && ${stamp} commit`
    : `${stamp} begin && node -e "process.exit(3)"`;
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'stand-in', private: true, scripts: { build } }));
}

const builds = () => (fs.existsSync(path.join(root, 'builds')) ? fs.readFileSync(path.join(root, 'builds'), 'utf8').length : 0);
const check = () => spawnSync(process.execPath, [path.join(scripts, 'build-if-stale.mjs')], { env: { ...process.env, BUILD_ROOT: root }, encoding: 'utf8' });
/** A later mtime than anything written so far, without waiting for the clock. */
const touchLater = (file: string) => {
  const t = new Date(Date.now() + 5_000);
  fs.utimesSync(file, t, t);
};

describe('npm start builds only when a source changed (scripts/build-if-stale.mjs)', () => {
  it('builds when there is no build, then not again while the build is current', () => {
    project();
    expect(check().status).toBe(0);
    expect(builds()).toBe(1);
    expect(check().status).toBe(0);
    expect(check().status).toBe(0);
    expect(builds()).toBe(1);
  });

  it('rebuilds after a source deep in src/ changed, and after a source was deleted', () => {
    project();
    check();
    touchLater(path.join(root, 'src/deep/a.ts'));
    expect(check().status).toBe(0);
    expect(builds()).toBe(2);
    fs.rmSync(path.join(root, 'src/deep/a.ts'));
    touchLater(path.join(root, 'src/deep'));
    check();
    expect(builds()).toBe(3);
  });

  it('a failed build leaves no stamp and stops the start with the build exit code', () => {
    project(false);
    const r = check();
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('building dist/ first');
    expect(fs.existsSync(path.join(root, 'dist/.build-stamp.json'))).toBe(false);
  });
});
