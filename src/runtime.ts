import { startDiscordBridge } from './discord/index.js';
import { startNotifier } from './notify/outbox-worker.js';
import type { Services } from './services.js';

/** A long-running part of the service (worker, bot, timer) with a clean stop. */
export interface BackgroundPart {
  name: string;
  stop(): Promise<void> | void;
}

const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

/**
 * Starts everything that runs beside the HTTP server. Each part rebuilds its
 * state from the database at start (the database is the queue), so a restart
 * loses nothing. Returns one stop() that stops the parts in reverse order.
 */
export async function startBackground(s: Services): Promise<{ parts: BackgroundPart[]; stop(): Promise<void> }> {
  const parts: BackgroundPart[] = [];

  const maintenance = () => {
    try {
      const pruned = s.maintenance();
      if (pruned.idempotencyKeys || pruned.events) s.logger.debug(pruned, 'pruned expired rows');
    } catch (err) {
      s.logger.error({ err }, 'maintenance failed');
    }
  };
  maintenance();
  // Temp files left by a crash mid-upload: never served (they do not match the key
  // pattern), removed here before any request can be writing new ones.
  const swept = await s.media.sweepTemp();
  if (swept) s.logger.info({ swept }, 'removed unfinished media uploads');
  const timer = setInterval(maintenance, MAINTENANCE_INTERVAL_MS).unref();
  parts.push({ name: 'maintenance', stop: () => clearInterval(timer) });

  // E-mail delivery from the outbox (or "e-mail off" when SMTP_URL is unset).
  parts.push(startNotifier(s, { onOutcome: (o) => s.ops.metrics?.delivery(o) }));

  if (s.config.discordToken) {
    // A refused token or intent is logged with advice; the HTTP service keeps running without the bridge.
    try {
      const bridge = await startDiscordBridge(s);
      s.ops.attachDiscord(bridge);
      parts.push({
        name: 'discord',
        stop: () => {
          s.ops.attachDiscord(null);
          return bridge.stop();
        },
      });
    } catch (err) {
      s.logger.error({ err }, (err as Error).message);
    }
  } else {
    s.logger.info('Discord bridge off: set DISCORD_TOKEN to connect a server');
  }

  return {
    parts,
    async stop() {
      for (const p of [...parts].reverse()) {
        try {
          await p.stop();
        } catch (err) {
          s.logger.error({ err, part: p.name }, 'stop failed');
        }
      }
    },
  };
}
