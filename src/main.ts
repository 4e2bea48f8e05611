import { serve } from '@hono/node-server';
import { bootstrapBanner, bootstrapIfEmpty } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';
import { createApp } from './http/app.js';
import { startBackground } from './runtime.js';
import { createServices } from './services.js';

/** Entry point: config → database + migrations → app + workers → serve; stops cleanly on SIGTERM/SIGINT. */
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
  const services = createServices(config);
  const { logger } = services;

  if (config.bootstrap) {
    const boot = bootstrapIfEmpty(services);
    if (boot) process.stdout.write(bootstrapBanner(boot, config.publicUrl) + '\n');
  }

  const app = createApp(services);
  const runtime = await startBackground(services);
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info({ port: info.port, host: config.host, publicUrl: config.publicUrl, dataDir: config.dataDir }, 'alertbridge listening');
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    services.live.closeAll(); // open SSE streams would otherwise keep server.close() waiting
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.stop();
    services.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`alertbridge: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
