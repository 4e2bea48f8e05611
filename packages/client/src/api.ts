import { fetchWithRetry, type RetryOptions } from './retry.js';
import { openStream, type StreamEvent, type StreamOptions } from './stream.js';
import type { AlertChange, AlertDelivery, AlertHistoryEntry, AlertPage, AlertQuery, AlertStatus, AlertWithChannel, AnyAlert, Channel, ChatThread, Heartbeat, SearchQuery, ThreadPage, ThreadQuery } from './types.js';

export interface AlertbridgeApiOptions {
  /** The service's address, e.g. `https://alerts.example.com` (PUBLIC_URL). */
  baseUrl: string;
  /** An API token (`ab_…`), sent as `Authorization: Bearer`. */
  token: string;
  /** Retrying of every call (network errors, 429, 5xx): every operation here is safe to repeat. */
  retry?: RetryOptions;
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * The read API, typed from the service's OpenAPI document. Every method throws an AlertbridgeError
 * on a refusal (problem document, or the 401 body).
 */
export class AlertbridgeApi {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #retry: RetryOptions;

  constructor(options: AlertbridgeApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token;
    this.#retry = options.retry ?? {};
  }

  /** The channels the token can see, with the caller's unread counts (`_count.alerts`). */
  channels(): Promise<Channel[]> {
    return this.request('GET', '/api/channels');
  }

  /** One page of a channel's alerts (newest first, or `order: 'asc'`; `thread` for one Discord thread); pass the previous `nextCursor` as `cursor`. */
  alertsPage(channel: string, query: AlertQuery = {}): Promise<AlertPage> {
    return this.request('GET', `/api/channels/${enc(channel)}/alerts`, { query });
  }

  /**
   * Every alert of a channel, newest first, page after page: `for await (const a of api.alerts('deploys', { level: 'error' }))`.
   * A Discord thread as it was written: `api.alerts('community', { thread: t.id, order: 'asc' })`.
   */
  alerts(channel: string, query: Omit<AlertQuery, 'cursor'> = {}): AsyncGenerator<AnyAlert, void, undefined> {
    return this.#walk((cursor) => this.alertsPage(channel, { ...query, cursor }));
  }

  /** One page of a full-text search over every visible channel (thread names included; `thread` and `tag` narrow it). */
  searchPage(query: SearchQuery): Promise<AlertPage> {
    return this.request('GET', '/api/search', { query });
  }

  /** Every search hit, page after page. */
  search(query: Omit<SearchQuery, 'cursor'>): AsyncGenerator<AnyAlert, void, undefined> {
    return this.#walk((cursor) => this.searchPage({ ...query, cursor }));
  }

  /** One page of a chat channel's Discord threads and forum posts (`sort: 'reactions'` ranks posts by votes). */
  threadsPage(channel: string, query: ThreadQuery = {}): Promise<ThreadPage> {
    return this.request('GET', `/api/channels/${enc(channel)}/threads`, { query });
  }

  /** Every thread of a chat channel, page after page. */
  async *threads(channel: string, query: Omit<ThreadQuery, 'cursor'> = {}): AsyncGenerator<ChatThread, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.threadsPage(channel, { ...query, cursor });
      yield* page.threads;
      cursor = page.hasMore && page.nextCursor ? page.nextCursor : undefined;
    } while (cursor);
  }

  /** One alert, with its channel's name and slug. */
  alert(id: string): Promise<AlertWithChannel> {
    return this.request('GET', `/api/alerts/${enc(id)}`);
  }

  /** Read state for the calling user, or status and snooze for everyone (`PATCH /api/alerts/{id}`). */
  update(id: string, change: AlertChange): Promise<AlertWithChannel> {
    return this.request('PATCH', `/api/alerts/${enc(id)}`, { body: change });
  }

  markRead(id: string, isRead = true): Promise<AlertWithChannel> {
    return this.update(id, { isRead });
  }

  setStatus(id: string, status: AlertStatus): Promise<AlertWithChannel> {
    return this.update(id, { status });
  }

  acknowledge(id: string): Promise<AlertWithChannel> {
    return this.setStatus(id, 'acknowledged');
  }

  resolve(id: string): Promise<AlertWithChannel> {
    return this.setStatus(id, 'resolved');
  }

  reopen(id: string): Promise<AlertWithChannel> {
    return this.setStatus(id, 'open');
  }

  /** Marks every alert read, in one channel (id or slug) or in every visible channel. */
  markAllRead(channel?: string): Promise<{ success: boolean; channelIds: string[] }> {
    return this.request('POST', '/api/alerts/mark-all-read', { body: channel === undefined ? {} : { channelId: channel } });
  }

  /** Who changed the alert's status, when and from where. */
  async history(id: string): Promise<AlertHistoryEntry[]> {
    return (await this.request<{ history: AlertHistoryEntry[] }>('GET', `/api/alerts/${enc(id)}/history`)).history;
  }

  /** Where the alert went: route, e-mail and push deliveries. */
  async deliveries(id: string): Promise<AlertDelivery[]> {
    return (await this.request<{ deliveries: AlertDelivery[] }>('GET', `/api/alerts/${enc(id)}/deliveries`)).deliveries;
  }

  /** The heartbeat checks of the visible channels. */
  heartbeats(): Promise<Heartbeat[]> {
    return this.request('GET', '/api/heartbeats');
  }

  /**
   * The live stream: alert events of the visible channels (or only `channels`), resuming with
   * Last-Event-ID after every drop, never yielding an event twice. `break` out of the loop or abort
   * `signal` to close it.
   */
  stream(options: StreamOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
    return openStream(this, options);
  }

  /** Any other operation of the API (an endpoint newer than this client): JSON in, JSON out. */
  async request<T>(method: string, path: string, opts: { query?: Query; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    const res = await fetchWithRetry(
      this.url(path, opts.query),
      () => ({ method, headers: this.headers(opts.body === undefined ? {} : { 'content-type': 'application/json' }), body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }),
      { ...this.#retry, signal: opts.signal ?? this.#retry.signal },
    );
    return (await res.json()) as T;
  }

  /** An absolute URL of the API with the defined query parameters. */
  url(path: string, query: Query = {}): string {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** The request headers of every call (the token, JSON). */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { accept: 'application/json', authorization: `Bearer ${this.#token}`, ...extra };
  }

  get retryOptions(): RetryOptions {
    return this.#retry;
  }

  async *#walk(page: (cursor: string | undefined) => Promise<AlertPage>): AsyncGenerator<AnyAlert, void, undefined> {
    let cursor: string | undefined;
    do {
      const p = await page(cursor);
      yield* p.alerts;
      cursor = p.hasMore && p.nextCursor ? p.nextCursor : undefined;
    } while (cursor !== undefined);
  }
}

const enc = encodeURIComponent;
