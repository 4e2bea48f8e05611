// tsc writes dist/cli.js without the executable bit; npm links the bin before the build runs
// (workspaces, `npm ci`), so the bit is set here for `npx alertbridge` and `./node_modules/.bin/alertbridge`.
import { chmodSync } from 'node:fs';

chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
