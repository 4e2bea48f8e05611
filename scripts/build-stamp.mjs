// The build's freshness stamp, shared by `npm run build` (which writes it) and `npm start`'s
// staleness check (scripts/build-if-stale.mjs, which reads it). The stamp holds the newest
// modification time among the build's inputs as seen when the build began, so a source saved
// while tsc was running still counts as newer than the build.
import fs from 'node:fs';
import path from 'node:path';

// BUILD_ROOT: another project directory, for test/scripts/build-if-stale.test.ts.
export const root = process.env.BUILD_ROOT ?? path.resolve(import.meta.dirname, '..');
export const STAMP = path.join(root, 'dist', '.build-stamp.json');
// What tsc and copy-assets read. Directories count too: deleting or renaming a file changes its
// directory's mtime, not any remaining file's.
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/copy-assets.mjs'];

export function newestInputMtimeMs() {
  let newest = 0;
  const walk = (dir) => {
    newest = Math.max(newest, fs.statSync(dir).mtimeMs);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  walk(path.join(root, 'src'));
  for (const f of INPUT_FILES) {
    const stat = fs.statSync(path.join(root, f), { throwIfNoEntry: false });
    if (stat) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

export function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(STAMP, 'utf8')).newestInputMtimeMs;
  } catch {
    return undefined;
  }
}

export function writeStamp(newestInputMtimeMs) {
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, JSON.stringify({ newestInputMtimeMs }));
}

// `node scripts/build-stamp.mjs begin` (first step of `npm run build`) notes the inputs' newest
// mtime and clears the stamp, so a failed build leaves no stamp; `… commit` (last step) writes it.
const step = process.argv[2];
const PENDING = path.join(root, 'dist', '.build-stamp.pending');
if (step === 'begin') {
  fs.rmSync(STAMP, { force: true });
  fs.mkdirSync(path.dirname(PENDING), { recursive: true });
  fs.writeFileSync(PENDING, String(newestInputMtimeMs()));
} else if (step === 'commit') {
  const pending = Number(fs.readFileSync(PENDING, 'utf8'));
  writeStamp(pending);
  fs.rmSync(PENDING, { force: true });
}
