import type { AlertbridgeApi } from './api.js';
import { errorFromResponse } from './errors.js';
import { backoff, isRetryableStatus, sleep } from './retry.js';
import type { AnyAlert } from './types.js';

/** One event of `GET /api/stream` (docs/notifications.md#live-stream), its `data` parsed. */
export type StreamEvent =
  | { event: 'alert.created' | 'alert.updated'; id: string; data: AnyAlert }
  | { event: 'alert.deleted'; id: string; data: { id: string; channelId: string } }
  | { event: 'read.updated'; id: undefined; data: { channelId: string; unread: number } }
  | { event: 'resync'; id: string | undefined; data: { reason: string } };

export interface StreamOptions {
  /** Only these channels (ids or slugs); default every visible channel. */
  channels?: readonly string[];
  /** Resume after this event id (a previous event's `id`). */
  lastEventId?: string;
  /** Closes the stream (the loop ends without an error). */
  signal?: AbortSignal;
  /** Wait before a reconnect in ms (default: the server's `retry:` hint, 3 s). Failures back off from there. */
  reconnectDelayMs?: number;
  /** Called each time a connection is open (the first and every reconnect): events posted after it are not missed. */
  onOpen?: () => void;
}

interface RawEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * The stream as an async generator: reconnects after a drop, a 5xx, a 429 or a `shutdown` event,
 * sending Last-Event-ID so the server replays what was missed; an event whose id is not past the
 * last one seen is dropped, so nothing is yielded twice. 401 and 404 end it with an AlertbridgeError.
 */
export async function* openStream(api: AlertbridgeApi, options: StreamOptions): AsyncGenerator<StreamEvent, void, undefined> {
  const doFetch = api.retryOptions.fetch ?? globalThis.fetch;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let lastId = options.lastEventId;
  let serverRetryMs = 3000;
  let failures = 0;
  // One channel is filtered by the server (`?channel=`); several are filtered here, by id.
  const channels = options.channels ?? [];
  const only = channels.length > 1 ? await channelIds(api, channels) : undefined;
  try {
    while (!controller.signal.aborted) {
      let dropped = true;
      try {
        const headers = api.headers({ accept: 'text/event-stream' });
        if (lastId !== undefined) headers['last-event-id'] = lastId;
        const res = await doFetch(api.url('/api/stream', { channel: channels.length === 1 ? channels[0] : undefined }), { headers, signal: controller.signal });
        if (!res.ok || !res.body) {
          if (!isRetryableStatus(res.status)) throw await errorFromResponse(res);
          await res.body?.cancel().catch(() => undefined);
        } else {
          failures = 0;
          options.onOpen?.();
          for await (const raw of sseEvents(res.body, (ms) => (serverRetryMs = ms))) {
            if (raw.id !== undefined) {
              if (lastId !== undefined && !isAfter(raw.id, lastId)) continue;
              lastId = raw.id;
            }
            if (raw.event === 'shutdown') {
              const retryMs = Number((parse(raw.data) as { retryMs?: unknown })?.retryMs);
              if (Number.isFinite(retryMs)) serverRetryMs = retryMs;
              break;
            }
            const event = { event: raw.event, id: raw.id, data: parse(raw.data) } as StreamEvent;
            const channelId = (event.data as { channelId?: unknown } | null)?.channelId;
            if (only && typeof channelId === 'string' && !only.has(channelId)) continue;
            yield event;
          }
          dropped = false;
        }
      } catch (err) {
        if (controller.signal.aborted) return;
        if (err instanceof Error && err.name === 'AlertbridgeError') throw err;
      }
      if (dropped) failures++;
      const wait = (options.reconnectDelayMs ?? serverRetryMs) + (failures > 0 ? backoff(failures - 1, { minDelayMs: 500, maxDelayMs: 30_000 }) : 0);
      await sleep(wait, controller.signal).catch(() => undefined);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/** Event ids are positions in the server's change log: numbers when they look like numbers. */
function isAfter(id: string, last: string): boolean {
  if (/^\d+$/.test(id) && /^\d+$/.test(last)) return BigInt(id) > BigInt(last);
  return id !== last;
}

async function channelIds(api: AlertbridgeApi, wanted: readonly string[]): Promise<Set<string>> {
  const all = await api.channels();
  const ids = new Set<string>();
  for (const w of wanted) {
    const c = all.find((x) => x.id === w || x.slug === w);
    if (!c) throw new TypeError(`stream: no visible channel "${w}"`);
    ids.add(c.id);
  }
  return ids;
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/** The HTML spec's event-stream parsing: a field per line, a blank line dispatches, `:` is a comment. */
export async function* sseEvents(body: ReadableStream<Uint8Array>, onRetry: (ms: number) => void): AsyncGenerator<RawEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event: { type: string; id: string | undefined; data: string[] } = { type: '', id: undefined, data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let m: RegExpExecArray | null;
      while ((m = /\r\n|\r|\n/.exec(buffer))) {
        const line = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        if (line === '') {
          if (event.data.length > 0) yield { event: event.type || 'message', id: event.id, data: event.data.join('\n') };
          event = { type: '', id: undefined, data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.type = value;
        else if (field === 'data') event.data.push(value);
        else if (field === 'id' && !value.includes('\0')) event.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
