import { loadConfig, type Config } from '../../src/config.js';
import type { App } from '../../src/http/app.js';
import { openServices, type ServiceOverrides, type Services } from '../../src/services.js';
import type { Engine } from './engine-harness.js';
import { createHarness, harnessOver, tempDir, type Harness } from './harness.js';
import { otherConnection, type OtherConnection } from './other-connection.js';
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
  /** Rows read straight from the database through another connection (test/helpers/other-connection.ts). */
  query: OtherConnection['query'];
  count: OtherConnection['count'];
  exec: OtherConnection['exec'];
  close(): Promise<void>;
}

/**
 * The real services and app, in-process, on testEngine() (or `engine`): createHarness's temp SQLite file, or a
 * fresh PostgreSQL database on TEST_DATABASE_URL's server (dropped at close) built by the service's
 * own `openServices`, with the same PUBLIC_URL and settings.
 */
export async function startHarness(opts: { env?: Record<string, string>; overrides?: ServiceOverrides; engine?: Engine } = {}): Promise<AnyHarness> {
  if ((opts.engine ?? testEngine()) === 'sqlite') {
    const h = createHarness(opts);
    const reader = otherConnection({ dbFile: h.config.dbFile });
    return {
      ...h,
      query: reader.query,
      count: reader.count,
      exec: reader.exec,
      close: async () => {
        await reader.close();
        await h.close();
      },
    };
  }
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
  const reader = otherConnection({ url: fresh.url });
  return {
    ...harnessOver(dir, config, services, async () => {
      await reader.close();
      await services.close();
      await fresh.drop();
    }),
    query: reader.query,
    count: reader.count,
    exec: reader.exec,
  };
}
