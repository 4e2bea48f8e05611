import dns, { type LookupAddress } from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import { createRequire } from 'node:module';
import { refusedEndpointReason } from '../../domain/push.js';
import { refusedAddressReason } from '../../lib/ssrf.js';
import type { PushEndpoint } from '../../domain/push-outbox.js';
import type { VapidKeys } from './vapid.js';

/** web-push and its crypto dependencies, loaded at the first push sent: a service nobody subscribed to never loads them. */
let webPush: typeof import('web-push') | undefined;
const loadWebPush = (): typeof import('web-push') => (webPush ??= createRequire(import.meta.url)('web-push') as typeof import('web-push'));

/** One push request, connect to answer. */
export const PUSH_TIMEOUT_MS = 10_000;
/** How long a push service keeps an undelivered push (a phone offline overnight still gets it). */
export const PUSH_TTL_SECONDS = 24 * 60 * 60;

export interface PushTransportOptions {
  vapid: VapidKeys;
  subject: string;
  /** PUSH_ALLOW_PRIVATE: lifts the address check (tests with a loopback push service). */
  allowPrivate: boolean;
  /** Extra TLS trust (tests: the self-signed certificate of the test's push service). */
  ca?: string | Buffer;
  timeoutMs?: number;
}

export type PushOutcome =
  | { ok: true; status: number }
  /** gone: 404/410, the subscription is dead. retry: 429, 5xx, network. Else permanent. */
  | { ok: false; gone: boolean; retry: boolean; reason: string };

export interface PushTransport {
  send(to: PushEndpoint, payload: string, o: { urgency: 'normal' | 'high'; topic?: string }): Promise<PushOutcome>;
}

/**
 * The push SSRF guard's socket half: every name is resolved here, every
 * address checked, and the socket connects to exactly the checked addresses
 * (no second lookup that DNS rebinding could answer differently).
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { family: options.family, hints: options.hints, all: true }, (err, addrs: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = allowPrivate ? undefined : addrs.find((a) => refusedAddressReason(a.address) !== null);
      if (refused || addrs.length === 0) {
        // The address is not named: it would map internal names for anyone who can subscribe.
        const e = Object.assign(new Error(`push endpoint host ${hostname} resolves to a refused address`), { code: 'EREFUSEDADDRESS' });
        return callback(e, '', 0);
      }
      if (options.all) callback(null, addrs);
      else callback(null, addrs[0]!.address, addrs[0]!.family);
    });
  };
}

/** web-push (RFC 8291 aes128gcm encryption, RFC 8292 VAPID) over an SSRF-guarded https agent. */
export function createPushTransport(o: PushTransportOptions): PushTransport {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8, lookup: guardedLookup(o.allowPrivate), ...(o.ca ? { ca: o.ca } : {}) });
  const vapidDetails = { subject: o.subject, publicKey: o.vapid.publicKey, privateKey: o.vapid.privateKey };
  return {
    async send(to, payload, opts) {
      // Literal addresses never reach the lookup above: checked here, as at subscription.
      const refused = refusedEndpointReason(to.endpoint, o.allowPrivate);
      if (refused) return { ok: false, gone: false, retry: false, reason: refused };
      try {
        const res = await loadWebPush().sendNotification({ endpoint: to.endpoint, keys: { p256dh: to.p256dh, auth: to.auth } }, payload, {
          vapidDetails,
          TTL: PUSH_TTL_SECONDS,
          urgency: opts.urgency,
          ...(opts.topic ? { topic: opts.topic } : {}),
          contentEncoding: 'aes128gcm',
          agent,
          timeout: o.timeoutMs ?? PUSH_TIMEOUT_MS,
        });
        return { ok: true, status: res.statusCode };
      } catch (err) {
        return describeFailure(err);
      }
    },
  };
}

function describeFailure(err: unknown): PushOutcome {
  if (webPush && err instanceof webPush.WebPushError) {
    const s = err.statusCode;
    // The body is the push service's words; cut short, it never holds our keys.
    const said = String(err.body ?? '').replace(/\s+/g, ' ').slice(0, 200);
    const reason = `push service answered ${s}${said ? `: ${said}` : ''}`;
    return { ok: false, gone: s === 404 || s === 410, retry: s === 429 || s >= 500, reason };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  const code = 'code' in e && typeof e.code === 'string' ? e.code : undefined;
  // Our own refusals and malformed keys are permanent; network trouble is retried.
  const permanent = code === 'EREFUSEDADDRESS' || /must be|invalid|length/i.test(e.message);
  return { ok: false, gone: false, retry: !permanent, reason: code ? `${code}: ${e.message}` : e.message };
}
