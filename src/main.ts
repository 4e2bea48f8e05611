import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { bootstrapBanner, bootstrapIfEmpty } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { deliverFirstStartBanner } from './first-start-file.js';
import { createApp } from './http/app.js';
import { gracefulShutdown } from './ops/shutdown.js';
import { startBackground } from './runtime.js';
import { openServices } from './services.js';

/**
 * Entry point: config → database + migrations (the SQLite file in DATA_DIR, or PostgreSQL when
 * DATABASE_URL is set: src/services.ts chooses) → app + workers → serve; drains and stops cleanly
 * on SIGTERM/SIGINT (src/ops/shutdown.ts), closing the database last (on PostgreSQL the pool, the
 * LISTEN connection, the leader lock and the Idempotency-Key claims' connection).
 */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`alertbridge: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const services = await openServices(config);
  const { logger } = services;

  if (config.bootstrap) {
    const boot = await bootstrapIfEmpty(services);
    if (boot) {
      const banner = bootstrapBanner(boot, config.publicUrl);
      process.stdout.write(deliverFirstStartBanner(banner, { dataDir: config.dataDir, isTTY: process.stdout.isTTY === true, logger }));
    }
  }

  const app = createApp(services);
  const runtime = await startBackground(services);
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info({ port: info.port, host: config.host, publicUrl: config.publicUrl, dataDir: config.dataDir, database: services.engine }, 'alertbridge listening');
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without finishing the shutdown');
      process.exit(1);
    }
    stopping = true;
    // Last resort if a step hangs: the drain and the stops are bounded, so this means a bug.
    const force = setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown did not finish in time; forcing exit');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    let clean = false;
    try {
      clean = await gracefulShutdown(
        {
          server: server as Server,
          ops: services.ops,
          logger,
          closeStreams: (reason) => services.live.closeAll(reason),
          stopBackground: () => runtime.stop(),
          closeServices: () => services.close(),
          timeoutMs: config.shutdownTimeoutMs,
        },
        signal,
      );
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
    }
    clearTimeout(force);
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`alertbridge: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
