import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A short digest of every file under `dir` (names and contents): names a template built from them. */
export function dirHash(dir: string): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(dir, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  return hash.digest('hex').slice(0, 16);
}
