import type { AlertRow } from '../../domain/alert-rows.js';
import { toAlertView } from '../../domain/alert-view.js';
import type { AlertSuppression } from '../../domain/routes/alert-events.js';
import { LEVEL_RANK, type RouteTarget } from '../../domain/routes/route-kinds.js';
import type { ClaimedRouteDelivery, RouteOutboxStore } from '../../domain/routes/route-outbox.js';
import type { RouteRow } from '../../domain/routes/route-rows.js';
import type { RouteTestAnswer } from '../../domain/routes/routes.js';
import { backoffDelay, type RetryPolicy } from '../../lib/backoff.js';
import type { Logger } from '../../lib/logger.js';
import { SecretKeyError } from '../../lib/secret-box.js';
import { renderRequest } from './formats/index.js';
import { parseFields, routeMessage, sampleMessage, type RouteMessage } from './message.js';
import type { RouteTransport } from './transport.js';

/** 10 s doubling to 15 minutes; attempts are bounded by age (giveUpMs), not by count. */
export const ROUTE_RETRY: RetryPolicy = { maxAttempts: Number.MAX_SAFE_INTEGER, baseDelayMs: 10_000, maxDelayMs: 15 * 60_000 };
/** A route whose every attempt failed for this long is paused, with a notice to the channel's owners and admins. */
export const PAUSE_AFTER_MS = 60 * 60_000;
/** How long a claimed row is leased: far beyond a request's timeout, so a live node's request is never taken from it. */
export const ROUTE_SEND_LEASE_MS = 2 * 60_000;

export interface RouteSenderDeps {
  outbox: RouteOutboxStore;
  transport: RouteTransport;
  openTarget: (route: RouteRow) => RouteTarget;
  suppressed: AlertSuppression;
  /** Told once when a route is paused after failing for an hour (e-mail to owners and admins). */
  onPaused: (route: RouteRow, reason: string) => Promise<void>;
  logger: Logger;
  now: () => number;
  random: () => number;
  publicUrl: string;
  mediaUrl: (key: string) => string;
  giveUpMs: number;
  pauseAfterMs: number;
  retry: RetryPolicy;
}

/** Why the route's filters leave this alert out, or null. */
export function filteredOut(route: RouteRow, alert: AlertRow): string | null {
  if (LEVEL_RANK[alert.level] < LEVEL_RANK[route.minLevel]) return `level ${alert.level} is below the route's ${route.minLevel}`;
  if (route.source !== null && alert.source !== route.source) return `source is not ${route.source}`;
  const fields = parseFields(alert.fieldsJson);
  const missing = route.fields.find((want) => !fields.some((f) => f.label === want.label && f.value === want.value));
  return missing ? `field ${missing.label} is not ${missing.value}` : null;
}

/** Sends one due route delivery: claim, filters, render, request, and the outcome recorded. */
export class RouteSender {
  constructor(private readonly deps: RouteSenderDeps) {}

  /** Returns the time the row's route is free again when its rate limit is full, else null. */
  async send(id: number): Promise<number | null> {
    const { deps } = this;
    const claim = await deps.outbox.claim(id, deps.now(), ROUTE_SEND_LEASE_MS);
    if (!claim) return null;
    if ('throttledUntil' in claim) return claim.throttledUntil;
    const d = claim.send;
    const now = deps.now();
    const alert = d.alert;
    const skip = alert ? (filteredOut(d.route, alert) ?? (await deps.suppressed(alert, d.createdAt))) : 'the alert was deleted';
    if (skip || !alert) {
      await deps.outbox.recordSkipped(d.id, skip ?? 'the alert was deleted', now);
      return null;
    }
    if (now - d.createdAt >= deps.giveUpMs) {
      await this.fail(d, null, 'gave up: the receiver did not accept it in time', null);
      return null;
    }
    let target: RouteTarget;
    try {
      target = deps.openTarget(d.route);
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      await this.fail(d, null, `route disabled: ${err.message}`, null);
      return null;
    }
    const message = routeMessage(alert, d.attachments, d.channel, d.event, { publicUrl: deps.publicUrl, mediaUrl: deps.mediaUrl });
    const req = renderRequest({
      kind: d.route.kind, target, message, messageRef: d.messageRef, webhookId: webhookIdOf(d), now,
      webhookPayload: webhookPayload(d, deps.mediaUrl),
    });
    const answer = await deps.transport.send(req);
    const after = deps.now();
    if (answer.ok) {
      await deps.outbox.recordSent(d.id, d.routeId, d.alertId, answer.status, req.refOf?.(answer.body) ?? null, after);
      return null;
    }
    let at: number | null = null;
    if (answer.retry) {
      at = after + Math.max(answer.retryAfterMs ?? 0, backoffDelay(deps.retry, d.attempts, deps.random));
      if (at - d.createdAt >= deps.giveUpMs) at = null;
    }
    await this.fail(d, at, answer.error, answer.status);
    return null;
  }

  private async fail(d: ClaimedRouteDelivery, at: number | null, error: string, status: number | null): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const since = await deps.outbox.recordFailure(d.id, d.routeId, at, status, error, now);
    if (now - since < deps.pauseAfterMs) return;
    const reason = `paused after failing for an hour: ${error}`;
    if (!(await deps.outbox.pauseRoute(d.routeId, reason, now))) return;
    deps.logger.warn({ routeId: d.routeId, kind: d.route.kind }, 'route paused after failing for an hour');
    await deps.onPaused(d.route, reason).catch((err: unknown) => deps.logger.error({ err, routeId: d.routeId }, 'route pause notice failed'));
  }
}

/** Sends the sample alert through a route and returns what the receiver answered (nothing stored). */
export async function sendRouteTest(
  transport: RouteTransport,
  o: { route: RouteRow; target: RouteTarget; channelName: string; publicUrl: string; now: number },
): Promise<RouteTestAnswer> {
  const message = sampleMessage(o.channelName, o.publicUrl, o.now);
  const webhookId = `msg_test_${o.now.toString(36)}`;
  const webhookPayload = samplePayload(message, o.route, o.channelName);
  const req = renderRequest({ kind: o.route.kind, target: o.target, message, messageRef: null, webhookId, now: o.now, webhookPayload });
  const answer = await transport.send(req);
  return answer.ok ? { ok: true, status: answer.status, body: answer.body, error: null } : { ok: false, status: answer.status, body: answer.body, error: answer.error };
}

/** Stable per (event, route): the row is one (event, route), so a resend after a crash carries the same id. */
export const webhookIdOf = (d: Pick<ClaimedRouteDelivery, 'id'>) => `msg_rd${d.id}`;

/** The `webhook` kind's body: the alert's standard JSON (without the reader's isRead) plus `event` and `channel`. */
function webhookPayload(d: ClaimedRouteDelivery, mediaUrl: (key: string) => string): unknown {
  const { isRead: _isRead, ...alert } = toAlertView(d.alert!, d.attachments, false, mediaUrl) as Record<string, unknown>;
  return { ...alert, event: d.event, channel: { id: d.channelId, slug: d.channel?.slug ?? null, name: d.channel?.name ?? null } };
}

function samplePayload(m: RouteMessage, route: RouteRow, channelName: string): unknown {
  const at = new Date(m.at * 1000).toISOString();
  return {
    id: m.alertId, channelId: route.channelId, title: m.title, level: m.level, emoji: m.emoji, message: m.message, fields: m.fields,
    linkUrl: null, linkText: null, source: m.source, actor: null, workflow: null, attachments: [], createdAt: at, updatedAt: at,
    event: m.event, channel: { id: route.channelId, slug: null, name: channelName }, test: true,
  };
}
