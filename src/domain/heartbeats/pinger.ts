import type { Clock } from '../../lib/clock.js';
import type { Limiter } from '../rate-limiter.js';
import type { HeartbeatAlerts } from './alerts.js';
import { applyPing, parseSuffix, type PingAction } from './ping.js';
import type { HeartbeatCheck, HeartbeatRows } from './ports.js';

/** How many pings per check per minute are recorded; Healthchecks asks for at most 5 and may drop more. */
export const PINGS_PER_CHECK_PER_MINUTE = 60;
/** Healthchecks' PING_BODY_LIMIT: the first 10 KB of a body are kept as the ping's log. */
export const PING_BODY_LIMIT = 10_000;

const RID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a ping URL answers, as Healthchecks does: 200 OK, 404 not found, 400 for a bad suffix or rid, 429 (slug form) over the limit. */
export type PingAnswer = { status: 200; body: 'OK' } | { status: 400; body: 'invalid url format' | 'invalid uuid format' } | { status: 404; body: 'not found' } | { status: 429; body: 'rate limit exceeded' };

export interface PingInput {
  suffix: string | undefined;
  rid: string | undefined;
  method: string;
  userAgent: string | null;
  /** The request body's first bytes (at most PING_BODY_LIMIT), read by the transport. */
  body: Uint8Array | null;
}

export interface PingerDeps {
  rows: HeartbeatRows;
  alerts: HeartbeatAlerts;
  limiter: Limiter;
  clock: Clock;
  /** Told when a due time may have moved earlier (the timer re-arms). */
  onDueChanged(at: number | null): void;
  /** Told after a ping is stored (the dashboard's live view). */
  onPinged(checkId: string): void;
}

const OK = { status: 200, body: 'OK' } as const;
const NOT_FOUND = { status: 404, body: 'not found' } as const;

/** The ping endpoints' use case (src/http/routes/ping.ts is its transport). */
export class Pinger {
  constructor(private readonly deps: PingerDeps) {}

  async byUuid(uuid: string, input: PingInput): Promise<PingAnswer> {
    if (!RID.test(uuid)) return NOT_FOUND;
    const check = await this.deps.rows.byUuid(uuid.toLowerCase());
    return check ? await this.record(check, input, false) : NOT_FOUND;
  }

  async bySlug(pingKey: string, slug: string, input: PingInput): Promise<PingAnswer> {
    if (slug !== slug.toLowerCase()) return { status: 400, body: 'invalid url format' };
    const check = await this.deps.rows.bySlug(pingKey, slug);
    return check ? await this.record(check, input, true) : NOT_FOUND;
  }

  private async record(check: HeartbeatCheck, input: PingInput, slugForm: boolean): Promise<PingAnswer> {
    const action: PingAction | undefined = parseSuffix(input.suffix);
    if (!action) return { status: 400, body: 'invalid url format' };
    if (input.rid !== undefined && !RID.test(input.rid)) return { status: 400, body: 'invalid uuid format' };
    // Over the limit the ping is not recorded; a UUID ping still answers OK (clients retry on errors), a slug ping 429.
    const decision = await this.deps.limiter.hit(check.id);
    if (!decision.allowed) return slugForm ? { status: 429, body: 'rate limit exceeded' } : OK;
    const now = this.deps.clock.now();
    const rid = input.rid?.toLowerCase() ?? null;
    const body = input.body && input.body.length > 0 ? new TextDecoder('utf-8').decode(input.body.subarray(0, PING_BODY_LIMIT)) : null;
    const saved = await this.deps.rows.ping(check.id, { method: input.method, userAgent: input.userAgent?.slice(0, 200) ?? null, body, rid }, now, (state) =>
      applyPing(state, action, rid, now),
    );
    if (!saved) return NOT_FOUND;
    this.deps.onDueChanged(saved.after.downAt);
    this.deps.onPinged(check.id);
    await this.deps.alerts.afterPing(saved.before, saved.after);
    return OK;
  }
}
