import net from 'node:net';
import { refusedAddressReason } from '../../lib/ssrf.js';
import type { AlertLevel } from '../alert-rows.js';

/** The receivers a route can forward to, each in its own native format (src/notify/routes/formats/). */
export const ROUTE_KINDS = ['slack', 'discord', 'teams', 'telegram', 'matrix', 'ntfy', 'webhook'] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** What happened to an alert; a reopen is `alert.opened`. */
export const ROUTE_EVENTS = ['alert.opened', 'alert.updated', 'alert.acknowledged', 'alert.resolved'] as const;
export type RouteEvent = (typeof ROUTE_EVENTS)[number];
export const DEFAULT_ROUTE_EVENTS: readonly RouteEvent[] = ['alert.opened', 'alert.resolved'];

export const LEVEL_RANK: Record<AlertLevel, number> = { INFO: 0, SUCCESS: 1, WARNING: 2, ERROR: 3 };

/**
 * A route's target with its secrets: sealed as one JSON value (src/lib/secret-box.ts), never logged.
 * `url`: the webhook URL, ntfy's SERVER/TOPIC, or Matrix's homeserver.
 */
export interface RouteTarget {
  url?: string;
  token?: string;
  secret?: string;
  botToken?: string;
  chatId?: string;
  apiUrl?: string;
  accessToken?: string;
  room?: string;
}

export const TELEGRAM_API_URL = 'https://api.telegram.org';

/** Standard Webhooks secrets: `whsec_` and base64 of 24 to 64 bytes. */
const WHSEC = /^whsec_([A-Za-z0-9+/]{32,88}={0,2})$/;

/**
 * Why `raw` cannot be a route's URL, or null: http(s), no credentials or fragment, and (unless
 * ROUTES_ALLOW_PRIVATE) no literal private address or single-label host. Names are checked again
 * at connect time against every address they resolve to (src/notify/routes/transport.ts).
 */
export function refusedRouteUrl(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  if (raw.length > 2048) return 'must be at most 2048 characters';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (allowPrivate) return null;
  if (net.isIP(host) !== 0) {
    const reason = refusedAddressReason(host);
    return reason ? `points at a ${reason} address (set ROUTES_ALLOW_PRIVATE=1 only for tests)` : null;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return 'must name a public host';
  return null;
}

/** A flag-level problem in a target: which input, and why. */
export interface TargetProblem {
  field: keyof RouteTarget;
  message: string;
}

/** Checks the target a kind needs; returns the first problem or null. */
export function targetProblem(kind: RouteKind, t: RouteTarget, allowPrivate: boolean): TargetProblem | null {
  const url = (field: 'url' | 'apiUrl', value: string | undefined): TargetProblem | null => {
    if (!value) return { field, message: 'is required' };
    const refused = refusedRouteUrl(value, allowPrivate);
    return refused ? { field, message: refused } : null;
  };
  const text = (field: keyof RouteTarget, value: string | undefined, max = 512): TargetProblem | null =>
    !value ? { field, message: 'is required' } : value.length > max || /[\r\n\0]/.test(value) ? { field, message: `must be one line of at most ${max} characters` } : null;
  switch (kind) {
    case 'slack':
    case 'discord':
    case 'teams':
      return url('url', t.url);
    case 'webhook':
      return url('url', t.url) ?? (t.secret !== undefined && !WHSEC.test(t.secret) ? { field: 'secret', message: 'must be whsec_ followed by base64' } : null);
    case 'ntfy': {
      const problem = url('url', t.url);
      if (problem) return problem;
      if (new URL(t.url!).pathname.split('/').filter(Boolean).length !== 1) return { field: 'url', message: 'must be SERVER/TOPIC (one path segment, the topic)' };
      return t.token !== undefined ? text('token', t.token) : null;
    }
    case 'telegram':
      return text('botToken', t.botToken) ?? text('chatId', t.chatId, 128) ?? url('apiUrl', t.apiUrl);
    case 'matrix':
      return url('url', t.url) ?? text('accessToken', t.accessToken, 1024) ?? text('room', t.room, 255);
  }
}

/** The masked form lists show: the host and the last four characters of what identifies the target. */
export function targetHint(kind: RouteKind, t: RouteTarget): string {
  const last4 = (s: string) => (s.length > 8 ? `…${s.slice(-4)}` : '…');
  if (kind === 'telegram') return `${new URL(t.apiUrl ?? TELEGRAM_API_URL).host} chat ${last4(t.chatId ?? '')}`;
  const url = new URL(t.url ?? '');
  if (kind === 'matrix') return `${url.host} room ${last4(t.room ?? '')}`;
  return `${url.host}/${last4(url.pathname + url.search)}`;
}
