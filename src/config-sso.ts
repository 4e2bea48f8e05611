import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * Single sign-on settings (docs/sso.md), part of the one environment schema in src/config.ts:
 * OpenID Connect and sign-in behind an authenticating proxy.
 */
const flag = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));
const list = (sep: RegExp) => z.string().transform((s) => s.split(sep).map((x) => x.trim()).filter(Boolean));

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** https://, or http:// on a loopback host only (development and tests). */
export function issuerAllowed(raw: string): boolean {
  try {
    const u = new URL(raw);
    return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname));
  } catch {
    return false;
  }
}

function cidrValid(s: string): boolean {
  try {
    if (s.includes('/')) ipaddr.parseCIDR(s);
    else ipaddr.parse(s);
    return true;
  } catch {
    return false;
  }
}

export const ssoEnvShape = {
  OIDC_ISSUER: z.string().refine(issuerAllowed, 'an https:// URL (http:// only on 127.0.0.1, ::1 or localhost)').optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_SCOPES: z.string().min(1).default('openid email profile'),
  OIDC_BUTTON_LABEL: z.string().min(1).max(60).default('single sign-on'),
  OIDC_ONLY: flag.default(false),
  OIDC_LINK_BY_EMAIL: flag.default(false),
  OIDC_ALLOWED_DOMAINS: list(/[\s,]+/).default([]),
  OIDC_GROUPS_CLAIM: z.string().min(1).default('groups'),
  TRUST_AUTH_HEADER: z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name').optional(),
  TRUST_GROUPS_HEADER: z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name').optional(),
  AUTH_PROXY_ADDRESSES: list(/[\s,]+/)
    .refine((xs) => xs.every(cidrValid), 'addresses or CIDRs (10.0.0.5, 10.0.0.0/8, ::1/128), separated by commas')
    .default([]),
};

const _ssoEnvObject = z.object(ssoEnvShape);
type SsoEnv = z.infer<typeof _ssoEnvObject>;

/** Cross-setting rules, as zod issues on the named setting. */
export function ssoEnvIssues(e: SsoEnv): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (e.OIDC_ISSUER && !e.OIDC_CLIENT_ID) out.push({ path: 'OIDC_CLIENT_ID', message: 'required with OIDC_ISSUER' });
  if (e.OIDC_ONLY && !e.OIDC_ISSUER) out.push({ path: 'OIDC_ONLY', message: 'needs OIDC_ISSUER: nobody could sign in but the break-glass owner' });
  if (e.TRUST_AUTH_HEADER && e.AUTH_PROXY_ADDRESSES.length === 0) {
    out.push({ path: 'AUTH_PROXY_ADDRESSES', message: 'required with TRUST_AUTH_HEADER: only the proxy may name the user' });
  }
  if (e.TRUST_GROUPS_HEADER && !e.TRUST_AUTH_HEADER) out.push({ path: 'TRUST_GROUPS_HEADER', message: 'needs TRUST_AUTH_HEADER' });
  return out;
}

export interface OidcConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly scopes: string;
  readonly buttonLabel: string;
  readonly linkByEmail: boolean;
  /** Lower-case domains whose addresses may get an account at their first sign-in. */
  readonly allowedDomains: readonly string[];
  readonly groupsClaim: string;
}

export interface AuthProxyConfig {
  /** Lower-case header names. */
  readonly emailHeader: string;
  readonly groupsHeader: string | undefined;
  readonly addresses: readonly string[];
}

export interface SsoConfig {
  /** Undefined: no OpenID Connect. */
  readonly oidc: OidcConfig | undefined;
  /** Links and passwords only for the break-glass owner. */
  readonly oidcOnly: boolean;
  /** Undefined: no authenticating proxy (the default). */
  readonly authProxy: AuthProxyConfig | undefined;
}

export function ssoConfig(e: SsoEnv): SsoConfig {
  return Object.freeze({
    oidc:
      e.OIDC_ISSUER && e.OIDC_CLIENT_ID
        ? Object.freeze({
            issuer: e.OIDC_ISSUER.replace(/\/+$/, ''),
            clientId: e.OIDC_CLIENT_ID,
            clientSecret: e.OIDC_CLIENT_SECRET,
            scopes: e.OIDC_SCOPES,
            buttonLabel: e.OIDC_BUTTON_LABEL,
            linkByEmail: e.OIDC_LINK_BY_EMAIL,
            allowedDomains: Object.freeze(e.OIDC_ALLOWED_DOMAINS.map((d) => d.toLowerCase().replace(/^@/, ''))),
            groupsClaim: e.OIDC_GROUPS_CLAIM,
          })
        : undefined,
    oidcOnly: e.OIDC_ONLY,
    authProxy: e.TRUST_AUTH_HEADER
      ? Object.freeze({
          emailHeader: e.TRUST_AUTH_HEADER.toLowerCase(),
          groupsHeader: e.TRUST_GROUPS_HEADER?.toLowerCase(),
          addresses: Object.freeze([...e.AUTH_PROXY_ADDRESSES]),
        })
      : undefined,
  });
}
