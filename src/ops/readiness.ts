import type { Config } from '../config.js';
import { discordStatus, type DiscordBridgeView } from './discord-status.js';
import { volumesOf, writtenDirs } from './free-space.js';
import type { DatabaseProbe } from '../domain/database-probe.js';
import type { OutboxBacklog } from '../domain/alert-reports.js';
import type { StorageHealth } from './storage-health.js';

/**
 * `fail` takes the service out of traffic (503); `warn` is reported but does
 * not: an SMTP outage or a Discord gateway outage must not stop webhooks from
 * being accepted, and another instance would not fix either.
 */
export type CheckStatus = 'ok' | 'warn' | 'fail';
export interface Check {
  status: CheckStatus;
  [detail: string]: unknown;
}

export interface Readiness {
  status: 'ready' | 'not-ready';
  checks: Record<string, Check>;
}

export interface ReadinessDeps {
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'mediaDir' | 'mediaFreeSpaceReserveBytes' | 'discordToken'>;
  database: DatabaseProbe;
  storage: StorageHealth;
  outbox: (now: number) => Promise<OutboxBacklog>;
  discord: () => DiscordBridgeView | null;
  draining: () => boolean;
  now: () => number;
}

const MB = 1024 * 1024;

/** Runs every check; each reports its numbers so an operator sees why, not just that. */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const checks: Record<string, Check> = {};

  const db = await deps.database.probe();
  const dbRoom = db.ok;
  checks.database = db.ok ? { status: 'ok' } : { status: 'fail', reason: db.reason };

  const reserve = deps.config.mediaFreeSpaceReserveBytes;
  let diskOk = false;
  try {
    // Every volume this node writes (the SQLite file's, MEDIA_DIR's), each measured once.
    const volumes = await volumesOf(writtenDirs(deps.config));
    const roomy = (free: number) => free > 0 && free >= reserve;
    const least = Math.min(...volumes.map((v) => v.free));
    diskOk = roomy(least);
    checks.disk = { status: diskOk ? 'ok' : 'fail', freeMb: Math.floor(least / MB), reserveMb: Math.round(reserve / MB) };
    if (volumes.length > 1) {
      const each = volumes.flatMap((v) => v.settings.map((s) => [s, { status: roomy(v.free) ? 'ok' : 'fail', freeMb: Math.floor(v.free / MB) }] as const));
      checks.disk.volumes = Object.fromEntries(each);
    }
  } catch (err) {
    checks.disk = { status: 'fail', reason: (err as Error).message };
  }

  // Without this, a load balancer that stopped sending traffic on our 503 would never see the write that clears it.
  if (dbRoom && diskOk) deps.storage.spaceReturned();
  const failure = deps.storage.failure;
  // A failure on the shared PostgreSQL server warns: every node has it, so failing readiness would only turn each sender's 503 into the load balancer's.
  checks.storage = failure
    ? { status: failure.shared ? 'warn' : 'fail', reason: failure.reason, since: new Date(failure.at).toISOString() }
    : { status: 'ok' };

  try {
    const b = await deps.outbox(deps.now());
    checks.outbox = { status: b.stale > 0 ? 'warn' : 'ok', pendingJobs: b.pending, staleJobs: b.stale, oldestDueSeconds: Math.round(b.oldestDueMs / 1000) };
  } catch (err) {
    checks.outbox = { status: 'warn', reason: (err as Error).message };
  }

  if (deps.config.discordToken) {
    const bridge = deps.discord();
    if (!bridge) checks.discord = { status: 'warn', gateway: 'not started', reason: 'the bridge did not start (see the log)' };
    else {
      const st = discordStatus(bridge);
      checks.discord = { status: st.up ? 'ok' : 'warn', gateway: st.gateway, channels: st.channels };
    }
  }

  if (deps.draining()) checks.shutdown = { status: 'fail', reason: 'shutting down' };

  const ready = Object.values(checks).every((c) => c.status !== 'fail');
  return { status: ready ? 'ready' : 'not-ready', checks };
}

/** /healthz's body: cheap (no query, no syscall), `degraded` with reasons while storage is failing. */
export function healthOf(storage: StorageHealth): { status: 'ok' } | { status: 'degraded'; reasons: string[] } {
  const f = storage.failure;
  return f ? { status: 'degraded', reasons: [`storage: ${f.reason}`] } : { status: 'ok' };
}
