import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';
import { AppError } from '../domain/errors.js';
import type { MediaFetcher } from '../domain/media.js';
import { loadUndici } from '../lib/undici-lazy.js';
import { refusedAddressReason, type AddressPolicy } from '../lib/ssrf.js';

/**
 * Downloads an attachment URL into a MediaBatch without letting the sender make
 * the service reach internal addresses: every hop is resolved once, every
 * address checked, and the socket connects to exactly the checked addresses.
 */

/** dns.lookup's `all: true` form; injectable so tests can map names to addresses. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** Settings of a fetcher (from config: ATTACHMENT_FETCH_ALLOW_PRIVATE, ATTACHMENT_FETCH_TIMEOUT_MS). */
export interface MediaFetcherOptions {
  /** Lifts the address check only (tests, trusted networks); every other rule stays. */
  allowPrivate: boolean;
  /** Whole download, redirects and body included. */
  timeoutMs: number;
  /** TCP/TLS connect of each hop; defaults to min(timeoutMs, 10 s). */
  connectTimeoutMs?: number;
  /** Redirects followed; one more is refused. */
  maxRedirects?: number;
  /** Name resolution; dns.lookup by default. */
  lookup?: LookupAll;
  /** Which addresses are allowed; refusedAddressReason by default. For tests that need a "public" loopback. */
  addressPolicy?: AddressPolicy;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Creates the SSRF-guarded attachment downloader. */
export function createMediaFetcher(options: MediaFetcherOptions): MediaFetcher {
  const timeoutMs = options.timeoutMs;
  const connectTimeoutMs = options.connectTimeoutMs ?? Math.min(timeoutMs, 10_000);
  const maxRedirects = options.maxRedirects ?? 3;
  const lookupAll: LookupAll = options.lookup ?? (dns.lookup as LookupAll);
  const policy: AddressPolicy = options.allowPrivate ? () => null : (options.addressPolicy ?? refusedAddressReason);

  async function resolveChecked(url: URL, shown: string): Promise<LookupAddress[]> {
    const host = bareHost(url.hostname);
    let addresses: LookupAddress[];
    const family = net.isIP(host);
    if (family !== 0) {
      addresses = [{ address: host, family }];
    } else {
      addresses = await new Promise<LookupAddress[]>((resolve, reject) => {
        lookupAll(host, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs)));
      }).catch((err: NodeJS.ErrnoException) => {
        throw fail(shown, `host ${host} could not be resolved (${err.code ?? err.message})`);
      });
      if (addresses.length === 0) throw fail(shown, `host ${host} has no address`);
    }
    for (const { address } of addresses) {
      const reason = policy(address);
      if (reason !== null) {
        // The resolved address is not echoed back: it would map internal names for anyone with a webhook token.
        throw fail(shown, address === host ? `address ${address} is ${reason}` : `${host} resolves to an address that is ${reason}`);
      }
    }
    return addresses;
  }

  return {
    async fetchInto(rawUrl, batch, opts = {}) {
      let url = parseUrl(rawUrl);
      const label = opts.label ?? showUrl(url);
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
      const { Agent, request } = await loadUndici();

      // Addresses checked for each host name, handed to the socket as-is: the
      // connection goes to exactly what was checked (no second, rebindable lookup).
      const pinned = new Map<string, LookupAddress[]>();
      const agent = new Agent({
        connect: {
          timeout: connectTimeoutMs,
          lookup: (hostname, lookupOpts, callback) => {
            const addrs = pinned.get(bareHost(hostname));
            if (!addrs) {
              callback(Object.assign(new Error(`refusing unchecked host ${hostname}`), { code: 'EUNCHECKED' }), '', 0);
              return;
            }
            const wanted = lookupOpts.family === 4 || lookupOpts.family === 6 ? addrs.filter((a) => a.family === lookupOpts.family) : addrs;
            if (lookupOpts.all) callback(null, wanted);
            else if (wanted[0]) callback(null, wanted[0].address, wanted[0].family);
            else callback(Object.assign(new Error(`no IPv${lookupOpts.family} address`), { code: 'ENOTFOUND' }), '', 0);
          },
        },
      });

      try {
        for (let hop = 0; ; hop++) {
          // Messages name the attachment, and the hop when it is not the first URL.
          const shown = hop === 0 ? label : `${label} → redirect to ${showUrl(url)}`;
          checkUrlShape(url, shown);
          pinned.set(bareHost(url.hostname), await resolveChecked(url, shown));
          if (signal.aborted) throw signal.reason;

          const res = await request(url, {
            method: 'GET',
            dispatcher: agent,
            signal,
            headers: {
              'user-agent': 'Alertbridge-media-fetcher/1',
              accept: 'image/*, video/*, audio/*;q=0.9, */*;q=0.1',
              'accept-encoding': 'identity',
            },
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          });

          if (REDIRECT_STATUSES.has(res.statusCode)) {
            await res.body.dump().catch(() => {});
            const location = headerValue(res.headers['location']);
            if (!location) throw fail(shown, `redirect ${res.statusCode} without a Location header`);
            if (hop >= maxRedirects) throw fail(label, `more than ${maxRedirects} redirects`);
            try {
              url = new URL(location, url);
            } catch {
              throw fail(shown, 'redirects to an invalid URL');
            }
            continue;
          }
          if (res.statusCode < 200 || res.statusCode > 299) {
            await res.body.dump().catch(() => {});
            throw fail(shown, `the server answered ${res.statusCode}`);
          }

          const lengthHeader = headerValue(res.headers['content-length']);
          const expectedSize = lengthHeader && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
          try {
            return await batch.putStream(res.body, { declaredKind: opts.declaredKind, label, expectedSize, maxBytes: opts.maxBytes });
          } finally {
            if (!res.body.destroyed) res.body.destroy();
          }
        }
      } catch (err) {
        throw translate(err, label, timeout, timeoutMs, opts.signal);
      } finally {
        agent.destroy().catch(() => {});
      }
    },
  };
}

/** Parses and shape-checks the URL given by the sender. */
function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('attachment-fetch-failed', `${truncate(raw)}: not a valid absolute URL`);
  }
  return url;
}

function checkUrlShape(url: URL, shown: string): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw fail(shown, `scheme ${url.protocol.replace(/:$/, '')} is not allowed (use http or https)`);
  }
  if (url.username !== '' || url.password !== '') throw fail(shown, 'URLs with credentials are not allowed');
  if (url.hostname === '') throw fail(shown, 'the URL has no host');
}

/**
 * A URL as shown in messages: scheme, host and path, never credentials, query
 * or fragment (they may hold secrets), at most `max` characters. Text that is
 * not an absolute URL is shown as given, shortened the same way.
 */
export function showUrl(url: URL | string, max = 200): string {
  const u = typeof url === 'string' ? (URL.canParse(url) ? new URL(url) : null) : url;
  return truncate(u ? `${u.protocol}//${u.host}${u.pathname}` : String(url), max);
}

function truncate(s: string, max = 200): string {
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function fail(shown: string, reason: string): AppError {
  return new AppError('attachment-fetch-failed', `${shown}: ${reason}`);
}

/** Every failure becomes 'attachment-fetch-failed' with a reason, except the store's own type/size errors. */
function translate(err: unknown, label: string, timeout: AbortSignal, timeoutMs: number, external?: AbortSignal): AppError | unknown {
  if (err instanceof AppError) return err;
  if (timeout.aborted) return fail(label, `timed out after ${timeoutMs} ms`);
  if (external?.aborted) return fail(label, 'cancelled');
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return fail(label, 'connection timed out');
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return fail(label, `timed out after ${timeoutMs} ms`);
  switch (code) {
    case 'ECONNREFUSED':
      return fail(label, 'connection refused');
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return fail(label, 'the connection was closed by the server');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fail(label, 'host not found');
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return fail(label, 'host unreachable');
  }
  if (typeof code === 'string' && /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code)) {
    return fail(label, `TLS error (${code})`);
  }
  return fail(label, `download failed (${code ?? (err instanceof Error ? err.message : String(err))})`);
}
