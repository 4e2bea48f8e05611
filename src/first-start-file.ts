import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from './lib/logger.js';

export const FIRST_START_FILE = 'first-start.txt';

/**
 * Where the first start's banner (owner's API token, webhook URL, sign-in
 * link) goes. A terminal gets it as before; anything else (a journal, a log
 * file, `docker logs`) would keep those secrets for good, so the banner goes
 * to DATA_DIR/first-start.txt, readable by this user only, and stdout gets its
 * path. Returns what to print.
 */
export function deliverFirstStartBanner(banner: string, o: { dataDir: string; isTTY: boolean; logger: Logger }): string {
  if (o.isTTY) return banner + '\n';
  const file = path.join(o.dataDir, FIRST_START_FILE);
  try {
    fs.mkdirSync(o.dataDir, { recursive: true });
    // A fresh file (never through a stale one or a symlink planted there), created 0600 from the start.
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, banner + '\n', { mode: 0o600, flag: 'wx' });
    fs.chmodSync(file, 0o600);
  } catch (err) {
    o.logger.error(
      { file, err: (err as Error).message },
      'writing the first-start file failed: create an API token with `admin token create` and a sign-in link with `admin login-link`',
    );
    return '';
  }
  return `\n  Alertbridge is set up. The owner's API token, webhook URL and sign-in link are in ${file}\n  (readable by this user only; keep the token somewhere safe, then delete the file).\n\n`;
}
