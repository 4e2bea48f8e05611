import { SqlHeartbeatRows } from '../db/shared/heartbeat-rows.js';
import type { ChangeBus } from '../domain/changes.js';
import { HeartbeatAlerts } from '../domain/heartbeats/alerts.js';
import { Heartbeats } from '../domain/heartbeats/heartbeats.js';
import { PINGS_PER_CHECK_PER_MINUTE, Pinger } from '../domain/heartbeats/pinger.js';
import { HeartbeatTimer, MAX_SLEEP_MS } from '../domain/heartbeats/timer.js';
import type { Limiter } from '../domain/rate-limiter.js';
import type { FormatIngest } from '../domain/webhook/ingest-formats.js';
import type { SqlExecutor } from '../db/shared/executor.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';

/** Heartbeat checks (docs/heartbeats.md): management, the ping endpoints' use case, and the leader's timer. */
export interface HeartbeatServices {
  checks: Heartbeats;
  pinger: Pinger;
  timer: HeartbeatTimer;
  alerts: HeartbeatAlerts;
  clock: Clock;
}

export function heartbeatServices(deps: {
  database: SqlExecutor;
  formats: Pick<FormatIngest, 'ingestGroup'>;
  limiter(scope: 'heartbeat', perMinute: number): Limiter;
  ids: IdGenerator;
  clock: Clock;
  logger: Logger;
  bus: ChangeBus;
}): HeartbeatServices {
  const rows = new SqlHeartbeatRows(deps.database);
  const alerts = new HeartbeatAlerts(rows, deps.formats, deps.logger);
  const timer = new HeartbeatTimer(rows, alerts, deps.clock, deps.logger);
  const pinger = new Pinger({
    rows,
    alerts,
    limiter: deps.limiter('heartbeat', PINGS_PER_CHECK_PER_MINUTE),
    clock: deps.clock,
    // A due time the leader's longest sleep could overshoot goes on the bus, which (on PostgreSQL)
    // reaches the leader's timer on whichever node it runs; a later one it reads at its next wake.
    onDueChanged: (at) => {
      if (at !== null && at - deps.clock.now() < MAX_SLEEP_MS) deps.bus.emit('heartbeat-due', at);
      else timer.dueChanged(at);
    },
    // The dashboard's Heartbeats page listens for this to refresh.
    onPinged: (checkId) => deps.bus.emit('heartbeats', checkId),
  });
  deps.bus.on('heartbeat-due', (at: number) => timer.dueChanged(at));
  return { checks: new Heartbeats(rows, deps.ids, deps.clock), pinger, timer, alerts, clock: deps.clock };
}
