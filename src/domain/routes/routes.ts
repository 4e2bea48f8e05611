import crypto from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { SecretKeyError, type SecretBox } from '../../lib/secret-box.js';
import type { AlertLevel } from '../alert-rows.js';
import { AppError, notFound } from '../errors.js';
import { DEFAULT_ROUTE_EVENTS, TELEGRAM_API_URL, targetHint, targetProblem, type RouteEvent, type RouteKind, type RouteTarget } from './route-kinds.js';
import type { FieldMatch, RouteChange, RouteRow, RouteRowStore } from './route-rows.js';

/** Discord allows 30 messages a minute per webhook; the others get the same polite default. */
export const DEFAULT_RATE_PER_MINUTE = 30;

export interface RouteInput {
  minLevel?: AlertLevel;
  events?: RouteEvent[];
  source?: string | null;
  fields?: FieldMatch[];
  ratePerMinute?: number;
}

/** How a route is shown: the target masked, and why it cannot send when the key does not open it. */
export interface RouteView {
  id: string;
  channelId: string;
  kind: RouteKind;
  target: string;
  minLevel: AlertLevel;
  events: RouteEvent[];
  source: string | null;
  fields: FieldMatch[];
  state: 'active' | 'paused';
  pausedReason: string | null;
  /** Set when SECRETS_KEY is missing or not the key the route was sealed with: the route is kept, and sends nothing. */
  disabled: string | null;
  ratePerMinute: number;
  createdAt: number;
  updatedAt: number;
}

/** A test send: what the receiver answered. */
export interface RouteTestAnswer {
  ok: boolean;
  status: number | null;
  body: string;
  error: string | null;
}

/** Sends one sample alert through a route (src/notify/routes/). */
export type RouteTester = (route: RouteRow, target: RouteTarget) => Promise<RouteTestAnswer>;

const invalid = (field: string, message: string) =>
  new AppError('invalid-body', `${field} ${message}`, { details: [{ code: 'invalid', message: `${field} ${message}`, path: [field] }] });

/** Creating, listing, changing and testing routes (admin CLI and channel settings). */
export class Routes {
  constructor(
    private readonly rows: RouteRowStore,
    private readonly box: SecretBox,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly allowPrivate: boolean,
    private readonly tester?: RouteTester,
  ) {}

  /** Why routes cannot be created or sent now (no usable key), or null. */
  get unavailable(): string | null {
    return this.box.unavailable;
  }

  /** Creates a route; `secret` is the webhook's signing secret, shown this once (null for other kinds). */
  async create(channelId: string, kind: RouteKind, target: RouteTarget, input: RouteInput): Promise<{ id: string; secret: string | null }> {
    const full = this.completeTarget(kind, target);
    const filters = this.checkFilters(input);
    const sealed = this.seal(kind, full);
    const now = this.clock.now();
    const id = this.ids.next('rt');
    await this.rows.insert({
      id, channelId, kind, ...sealed,
      minLevel: filters.minLevel ?? 'INFO',
      events: filters.events ?? [...DEFAULT_ROUTE_EVENTS],
      source: filters.source ?? null,
      fields: filters.fields ?? [],
      state: 'active', pausedReason: null, failingSince: null,
      ratePerMinute: filters.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE,
      createdAt: now, updatedAt: now,
    });
    return { id, secret: kind === 'webhook' ? full.secret! : null };
  }

  async list(channelId?: string): Promise<RouteView[]> {
    return (await this.rows.list(channelId)).map((r) => this.view(r));
  }

  async get(id: string): Promise<RouteView> {
    return this.view(await this.require(id));
  }

  /** Changes filters, the target (replaced whole, never merged into the old one) or the state; resuming clears the failure clock. */
  async update(id: string, change: RouteInput & { target?: RouteTarget; state?: 'active' | 'paused' }): Promise<RouteView> {
    const route = await this.require(id);
    const patch: RouteChange = { ...this.checkFilters(change) };
    if (change.target) {
      // A new URL keeps the webhook's secret unless a new one is given: receivers keep verifying.
      const old = change.target.secret === undefined && route.kind === 'webhook' ? this.openTarget(route).secret : undefined;
      Object.assign(patch, this.seal(route.kind, this.completeTarget(route.kind, { ...change.target, ...(old ? { secret: old } : {}) })));
    }
    if (change.state) {
      patch.state = change.state;
      patch.pausedReason = change.state === 'paused' ? 'paused by hand' : null;
      if (change.state === 'active') patch.failingSince = null;
    }
    await this.rows.update(id, patch, this.clock.now());
    return this.get(id);
  }

  async remove(id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.rows.remove(id))) throw notFound('route');
    return { id, deleted: true };
  }

  /** Sends a sample alert through the route and returns the receiver's answer (nothing is stored). */
  async test(id: string): Promise<RouteTestAnswer> {
    const route = await this.require(id);
    if (!this.tester) throw new AppError('internal', 'route tests need the service');
    let target: RouteTarget;
    try {
      target = this.openTarget(route);
    } catch (err) {
      if (err instanceof SecretKeyError) throw new AppError('storage-unavailable', `route disabled: ${err.message}`);
      throw err;
    }
    return this.tester(route, target);
  }

  /** The target with its secrets, for the sender; throws SecretKeyError when the key does not open it. */
  openTarget(route: Pick<RouteRow, 'targetSealed'>): RouteTarget {
    return JSON.parse(this.box.open(route.targetSealed)) as RouteTarget;
  }

  async require(id: string): Promise<RouteRow> {
    const route = await this.rows.byId(id);
    if (!route) throw notFound('route');
    return route;
  }

  view(r: RouteRow): RouteView {
    const disabled = this.box.keyId === null ? this.box.unavailable : r.keyId !== this.box.keyId ? `sealed under key ${r.keyId}, but SECRETS_KEY is key ${this.box.keyId}: restore the original key` : null;
    return {
      id: r.id, channelId: r.channelId, kind: r.kind, target: r.targetHint, minLevel: r.minLevel, events: r.events, source: r.source,
      fields: r.fields, state: r.state, pausedReason: r.pausedReason, disabled, ratePerMinute: r.ratePerMinute, createdAt: r.createdAt, updatedAt: r.updatedAt,
    };
  }

  private completeTarget(kind: RouteKind, t: RouteTarget): RouteTarget {
    const full: RouteTarget = { ...t };
    if (kind === 'telegram') full.apiUrl ??= TELEGRAM_API_URL;
    if (kind === 'webhook') full.secret ??= `whsec_${crypto.randomBytes(32).toString('base64')}`;
    const problem = targetProblem(kind, full, this.allowPrivate);
    if (problem) throw invalid(problem.field, problem.message);
    return full;
  }

  private seal(kind: RouteKind, target: RouteTarget) {
    try {
      return { targetSealed: this.box.seal(JSON.stringify(target)), keyId: this.box.keyId!, targetHint: targetHint(kind, target) };
    } catch (err) {
      if (err instanceof SecretKeyError) throw new AppError('storage-unavailable', `routes are disabled: ${err.message}`);
      throw err;
    }
  }

  private checkFilters(input: RouteInput): RouteInput {
    const out: RouteInput = {};
    if (input.minLevel !== undefined) out.minLevel = input.minLevel;
    if (input.events !== undefined) {
      if (input.events.length === 0) throw invalid('events', 'must name at least one event');
      out.events = [...new Set(input.events)];
    }
    if (input.source !== undefined) {
      if (input.source !== null && (input.source.length === 0 || input.source.length > 200)) throw invalid('source', 'must be 1 to 200 characters');
      out.source = input.source;
    }
    if (input.fields !== undefined) {
      if (input.fields.length > 10) throw invalid('fields', 'at most 10 field matches');
      for (const f of input.fields) if (!f.label || f.label.length > 200 || f.value.length > 1000) throw invalid('fields', 'each must be label=value (label 1 to 200 characters)');
      out.fields = input.fields;
    }
    if (input.ratePerMinute !== undefined) {
      if (!Number.isInteger(input.ratePerMinute) || input.ratePerMinute < 1 || input.ratePerMinute > 600) throw invalid('ratePerMinute', 'must be a whole number from 1 to 600');
      out.ratePerMinute = input.ratePerMinute;
    }
    return out;
  }
}
