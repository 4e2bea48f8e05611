import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/harness.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';

/**
 * What only some installations use is loaded when first used, not at start (docs/operations.md,
 * "Starting and restarting"): `dist/main.js` is started with a preload that prints every module it loads.
 */
const REGISTER = path.resolve('test/fixtures/module-log/register.mjs');
const LAZY: [string, RegExp][] = [
  ['the PostgreSQL store', /\/dist\/db\/pg\//],
  ['pg', /(^|\/node_modules\/)pg(\/|$)/],
  ['prom-client', /(^|\/node_modules\/)prom-client(\/|$)/],
  ['web-push', /(^|\/node_modules\/)web-push(\/|$)/],
  ['file-type', /\/node_modules\/file-type\//],
  ['openid-client', /(^|\/node_modules\/)openid-client(\/|$)/],
  ['jose', /(^|\/node_modules\/)jose(\/|$)/],
  ['discord.js', /(^|\/node_modules\/)(discord\.js|@discordjs\/[^/]+)(\/|$)/],
];
/** drizzle is the migrator's: a start with nothing to migrate never loads it. */
const DRIZZLE = /(^|\/node_modules\/)drizzle-orm(\/|$)/;

let dir: string;
let svc: SpawnedService | undefined;
afterEach(async () => {
  svc?.child.kill('SIGKILL');
  if (svc) await svc.exited;
  svc = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const loaded = (s: SpawnedService) => s.output().split('\n').filter((l) => l.startsWith('module-load ')).map((l) => l.slice('module-load '.length));

describe('modules loaded at start', () => {
  it('a SQLite service without metrics or OIDC never loads pg, the PostgreSQL store, prom-client, web-push, file-type, openid-client, jose or discord.js', async () => {
    dir = tempDir();
    svc = await spawnService({ DATA_DIR: dir, BOOTSTRAP: '0', NODE_OPTIONS: `--import ${REGISTER}` });
    const modules = loaded(svc);
    // The preload works: the service's own modules and better-sqlite3 are listed.
    expect(modules.some((m) => m.endsWith('/dist/services.js'))).toBe(true);
    expect(modules.some((m) => /node_modules\/better-sqlite3\//.test(m))).toBe(true);
    for (const [name, re] of LAZY) expect(modules.filter((m) => re.test(m)), name).toEqual([]);
  });

  it('a restart with nothing to migrate never loads drizzle; the first start (migrating) does', async () => {
    dir = tempDir();
    svc = await spawnService({ DATA_DIR: dir, BOOTSTRAP: '0', NODE_OPTIONS: `--import ${REGISTER}` });
    expect(loaded(svc).filter((m) => DRIZZLE.test(m)).length).toBeGreaterThan(0);
    svc.child.kill('SIGKILL');
    await svc.exited;
    svc = await spawnService({ DATA_DIR: dir, BOOTSTRAP: '0', NODE_OPTIONS: `--import ${REGISTER}` });
    expect(loaded(svc).filter((m) => DRIZZLE.test(m))).toEqual([]);
    expect(loaded(svc).some((m) => m.endsWith('/dist/services.js'))).toBe(true);
  });

  it('with METRICS=1, prom-client is loaded at start (the same check, positively)', async () => {
    dir = tempDir();
    svc = await spawnService({ DATA_DIR: dir, BOOTSTRAP: '0', METRICS: '1', NODE_OPTIONS: `--import ${REGISTER}` });
    expect(loaded(svc).filter((m) => /(^|\/node_modules\/)prom-client(\/|$)/.test(m)).length).toBeGreaterThan(0);
  });
});
