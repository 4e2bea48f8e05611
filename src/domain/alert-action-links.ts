import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { appSecret, type AppSecretRows } from './auth/app-secrets.js';

/**
 * Acting on an alert from an e-mail or a push notification (docs/handling-alerts.md): a link signed
 * for one recipient, one alert and one action (a push token: either action), valid 24 hours and
 * usable once. The signature is an HMAC with a key kept in the database (every node signs alike);
 * "used once" is a row per nonce (ActionLinkUses). The link itself changes nothing: a GET shows a
 * confirmation page naming who acts (mail scanners fetch links), the POST acts, and only while that
 * person can still see the alert.
 */

export const ALERT_ACTION_SECRET_NAME = 'alert-action-hmac';
export const ACTION_LINK_TTL_MS = 24 * 3600 * 1000;

export type LinkAction = 'acknowledge' | 'resolve';
/** A push token authorises either action: the notification's two buttons share it. */
export type TokenAction = LinkAction | 'any';
export type LinkVia = 'email' | 'push';

export interface ActionGrant {
  userId: string;
  alertId: string;
  action: TokenAction;
  via: LinkVia;
  expiresAt: number;
  nonce: string;
}

/** The single-use record (src/db/shared/action-link-use-rows.ts). */
export interface ActionLinkUses {
  /** Records the nonce's use; false when it was used before. */
  use(nonce: string, expiresAt: number, now: number): Promise<boolean>;
  /** Forgets uses of links expired before `before`; how many. */
  prune(before: number): Promise<number>;
}

const ACTIONS: readonly TokenAction[] = ['acknowledge', 'resolve', 'any'];
const VIAS: readonly LinkVia[] = ['email', 'push'];
const TOKEN = /^([A-Za-z0-9_-]{1,600})\.([A-Za-z0-9_-]{43})$/;

export class AlertActionLinks {
  private readonly key: Buffer;

  constructor(
    secrets: AppSecretRows,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    private readonly uses: ActionLinkUses,
  ) {
    this.key = appSecret(secrets, clock, ALERT_ACTION_SECRET_NAME);
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(`alert-action\n${body}`).digest('base64url');
  }

  /** A fresh token for `userId` on `alertId`. */
  token(userId: string, alertId: string, action: TokenAction, via: LinkVia): string {
    const body = Buffer.from(
      JSON.stringify({ u: userId, a: alertId, x: action, v: via, e: this.clock.now() + ACTION_LINK_TTL_MS, n: randomBytes(12).toString('base64url') }),
    ).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The confirmation page an e-mail button opens. */
  url(userId: string, alertId: string, action: LinkAction): string {
    return `${this.publicUrl}/alert-action?${new URLSearchParams({ t: this.token(userId, alertId, action, 'email') })}`;
  }

  /** The grant a token carries, or why it carries none; checks the signature and the expiry, not the use. */
  read(token: string): ActionGrant | 'invalid' | 'expired' {
    const m = TOKEN.exec(token);
    if (!m) return 'invalid';
    const [, body, signature] = m as unknown as [string, string, string];
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    let claims: { u?: unknown; a?: unknown; x?: unknown; v?: unknown; e?: unknown; n?: unknown };
    try {
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return 'invalid';
    }
    const { u, a, x, v, e, n } = claims;
    if (typeof u !== 'string' || typeof a !== 'string' || typeof n !== 'string' || typeof e !== 'number') return 'invalid';
    if (!ACTIONS.includes(x as TokenAction) || !VIAS.includes(v as LinkVia)) return 'invalid';
    if (e <= this.clock.now()) return 'expired';
    return { userId: u, alertId: a, action: x as TokenAction, via: v as LinkVia, expiresAt: e, nonce: n };
  }

  /** Marks the grant used; false when it was used before (the second press of a button, a replayed link). */
  async use(grant: ActionGrant): Promise<boolean> {
    const now = this.clock.now();
    await this.uses.prune(now);
    return this.uses.use(grant.nonce, grant.expiresAt, now);
  }
}
