import fs from 'node:fs';
import { loadConfig, type Config } from '../../src/config.js';
import { createApp, type App } from '../../src/http/app.js';
import { openServices, type ServiceOverrides, type Services } from '../../src/services.js';
import type { Engine } from './engine-harness.js';
import { callOf, createHarness, tempDir, type Harness } from './harness.js';
import { freshDatabase } from './pg.js';

/** The engine a file's harnesses use: SQLite, or PostgreSQL when TEST_ENGINE=postgres (the `*-on-postgres` projects of vitest.config.ts). */
export function testEngine(): Engine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
}

/** createHarness on either engine: what an engine-neutral test file uses (no `services.db`). */
export interface AnyHarness {
  dir: string;
  config: Config;
  services: Services;
  app: App;
  call: Harness['call'];
  close(): Promise<void>;
}

/**
 * The real services and app, in-process, on testEngine(): createHarness's temp SQLite file, or a
 * fresh PostgreSQL database on TEST_DATABASE_URL's server (dropped at close) built by the service's
 * own `openServices`, with the same PUBLIC_URL and settings.
 */
export async function startHarness(opts: { env?: Record<string, string>; overrides?: ServiceOverrides } = {}): Promise<AnyHarness> {
  if (testEngine() === 'sqlite') return createHarness(opts);
  const dir = tempDir();
  const fresh = await freshDatabase();
  const config = loadConfig({
    DATA_DIR: dir,
    PUBLIC_URL: 'http://alertbridge.test',
    LOG_LEVEL: 'silent',
    AVATAR_BASE_URL: '',
    DATABASE_URL: fresh.url,
    PG_POOL_MAX: '4',
    ...opts.env,
  });
  const services = await openServices(config, opts.overrides);
  const app = createApp(services);
  return {
    dir,
    config,
    services,
    app,
    call: callOf(app),
    close: async () => {
      await services.close();
      await fresh.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
