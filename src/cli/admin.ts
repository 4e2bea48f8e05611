#!/usr/bin/env node
// The admin CLI's entry point: `npm run admin`, `node dist/cli/admin.js`, the `alertbridge-admin` bin.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runAdmin } from './run.js';

export { runAdmin };

// Run only when started as a program, not when a test imports runAdmin. The bin is a symlink,
// so argv[1] is compared after resolving it.
const entry = process.argv[1] ? fs.realpathSync(process.argv[1]) : undefined;
if (entry === fileURLToPath(import.meta.url)) {
  const result = await runAdmin(process.argv.slice(2));
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}
