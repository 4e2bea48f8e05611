import type { Server } from 'node:http';
import type { Logger } from '../lib/logger.js';
import type { Operations } from './operations.js';

export interface ShutdownDeps {
  server: Server;
  ops: Operations;
  logger: Logger;
  /** Ends the SSE streams, each with a final `shutdown` event. */
  closeStreams(reason: string): void;
  /** Stops the Discord bridge, the outbox worker and the timers (runtime.ts). */
  stopBackground(): Promise<void>;
  /** Flushes the group commit and closes the database (services.close()). */
  closeServices(): void | Promise<void>;
  timeoutMs: number;
}

/** How often idle keep-alive sockets are swept while draining (a stream that just ended leaves one). */
const SWEEP_MS = 25;

/**
 * Graceful shutdown, in the order that loses nothing:
 * 1. stop accepting connections; every answer from now on says `Connection: close`
 *    (drain middleware), so a busy keep-alive client gets its current response
 *    and then its socket is closed instead of being served again;
 * 2. end the SSE streams with a `shutdown` event;
 * 3. wait for the requests in flight (each is answered after its commit, so an
 *    answered 201 is stored) — at most until the drain deadline, after which
 *    the remaining connections are cut: those requests are not answered;
 * 4. stop the background parts, flush the group commit, close the database.
 * Resolves true when it all finished inside `timeoutMs`; the caller exits 0.
 * The drain leaves a quarter of the budget (at most 2 s) for step 4.
 */
export async function gracefulShutdown(deps: ShutdownDeps, signal: string): Promise<boolean> {
  const started = Date.now();
  const deadline = started + deps.timeoutMs;
  const drainDeadline = deadline - Math.min(2_000, deps.timeoutMs / 4);
  deps.ops.draining = true;
  deps.logger.info({ signal, timeoutMs: deps.timeoutMs }, 'shutting down: draining connections');

  const closed = new Promise<void>((resolve) => deps.server.close(() => resolve()));
  deps.closeStreams('server shutting down');
  const sweep = setInterval(() => deps.server.closeIdleConnections(), SWEEP_MS);
  let drained: boolean;
  try {
    drained = await Promise.race([
      closed.then(() => waitFor(() => deps.ops.inFlight === 0, drainDeadline)),
      sleepUntil(drainDeadline).then(() => false),
    ]);
  } finally {
    clearInterval(sweep);
  }
  if (!drained) {
    deps.logger.warn({ inFlight: deps.ops.inFlight }, 'shutdown: requests still running at the drain deadline; their connections are closed unanswered');
    deps.server.closeAllConnections();
  }

  const stopped = await Promise.race([deps.stopBackground().then(() => true), sleepUntil(deadline - 200).then(() => false)]);
  if (!stopped) deps.logger.warn('shutdown: background parts did not stop in time');
  try {
    await Promise.race([Promise.resolve(deps.closeServices()), sleepUntil(deadline)]);
  } catch (err) {
    deps.logger.error({ err }, 'shutdown: closing the database failed');
  }
  deps.logger.info({ tookMs: Date.now() - started }, 'shut down');
  return stopped;
}

async function waitFor(cond: () => boolean, until: number): Promise<boolean> {
  while (!cond()) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

function sleepUntil(at: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())).unref());
}
