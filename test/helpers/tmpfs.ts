import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { it } from 'vitest';

/**
 * Mounts a small tmpfs at `dir` (needs root: CAP_SYS_ADMIN). Where it cannot, the file's tests are
 * skipped and a line says why; with CI=true a failing test says so instead, so CI never skips them
 * silently (CI runs as root on these machines).
 */
export function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const why = `cannot mount a tmpfs (${(err as Error).message.split('\n')[0]}): needs root`;
    if (process.env.CI) {
      it('mounts a tmpfs for the real full-disk tests', () => {
        throw new Error(`${why}; CI must run these tests`);
      });
    } else {
      console.warn(`skipped: ${why}`);
    }
    return false;
  }
}
