import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import ipaddr from 'ipaddr.js';
import type { AuthProxyConfig } from '../../config-sso.js';
import { digest } from '../../domain/auth/secrets.js';
import type { DashboardDeps } from '../deps.js';
import { clearSessionCookie } from '../http/session.js';
import { startSession } from '../routes/auth.js';

const PROXY_ISSUER = 'auth-proxy';

/** The TCP peer, never X-Forwarded-For: only the connection itself says who is talking. */
function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address ?? undefined;
  } catch {
    return undefined;
  }
}

export function peerTrusted(address: string | undefined, allowed: readonly string[]): boolean {
  if (!address) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(address);
  } catch {
    return false;
  }
  return allowed.some((entry) => {
    try {
      const [net, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : (() => { const a = ipaddr.process(entry); return [a, a.kind() === 'ipv4' ? 32 : 128] as const; })();
      const n = net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() ? (net as ipaddr.IPv6).toIPv4Address() : net;
      return n.kind() === addr.kind() && addr.match(n as never, bits);
    } catch {
      return false;
    }
  });
}

/**
 * Sign-in by an authenticating proxy (docs/sso.md): on a dashboard GET from a trusted peer whose header
 * names a verified address, a session for that account starts (the group mapping applies); a session
 * the proxy started ends when the header names someone else. The API and /mcp never get here.
 */
export function authProxy(deps: DashboardDeps, cfg: AuthProxyConfig): MiddlewareHandler {
  return async (c, next) => {
    const named = c.req.header(cfg.emailHeader)?.trim().toLowerCase();
    if (!named || !peerTrusted(peerAddress(c), cfg.addresses)) return next();
    const secret = getCookie(c, deps.cookieName);
    const session = secret ? await deps.sessions.resolve(secret) : undefined;
    if (session) {
      const link = await deps.services.sso.signOn.rows.sessionLink(session.idHash);
      if (!link || link.via !== 'proxy' || link.subject === named) return next();
      // The proxy now names someone else: this session ends, whoever it was.
      await deps.sessions.end(session);
      clearSessionCookie(c, deps);
    }
    // Only GETs start a session: a POST keeps its CSRF rules.
    if (c.req.method !== 'GET') return next();
    const user = await deps.accounts.findUserByVerifiedEmail(named);
    if (!user) return next();
    const groups = cfg.groupsHeader ? (c.req.header(cfg.groupsHeader) ?? '').split(',').map((g) => g.trim()).filter(Boolean).slice(0, 500) : [];
    await deps.services.sso.signOn.syncGroups(user.id, groups, peerAddress(c) ?? null);
    const fresh = await startSession(c, deps, user.id, 'proxy');
    await deps.services.sso.signOn.recordSession({ sessionHash: digest(fresh), issuer: PROXY_ISSUER, subject: named, sid: null, via: 'proxy' });
    // The browser comes back with its new cookie.
    const url = new URL(c.req.url);
    return c.redirect(url.pathname + url.search, 303);
  };
}
