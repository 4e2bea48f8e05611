import { fetchWithRetry, type RetryOptions } from './retry.js';
import type { AlertPayload, WebhookAccepted } from './types.js';

/** A file to attach: bytes, a Blob (a File keeps its name), or (on Node only) a file path. */
export type AttachmentSource = Uint8Array | ArrayBuffer | Blob | string;

/** An attachment with its display name; the service recognises the format from the bytes. */
export interface AttachmentInput {
  data: AttachmentSource;
  /** Shown as the attachment's name (default: a File's or path's base name). */
  name?: string;
}

export interface SendOptions extends RetryOptions {
  /** Files sent as multipart parts next to the JSON (at most 10 attachments in all). */
  attachments?: readonly (AttachmentSource | AttachmentInput)[];
  /** The Idempotency-Key of this call (default: a random one); every retry of the call reuses it. */
  idempotencyKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** Reads a file path into a Blob: given by the Node entry point; the browser entry has none. */
export type FileReader = (path: string) => Promise<{ blob: Blob; name: string }>;

/**
 * Posts one alert to a channel's webhook URL and returns the 201 body. Retries network errors, 429
 * (after Retry-After) and 5xx with the same Idempotency-Key, so a retried request never makes a
 * second alert. A refusal is thrown as an AlertbridgeError with the problem's members.
 */
export async function sendAlertWith(readFile: FileReader | undefined, webhookUrl: string, alert: AlertPayload, options: SendOptions = {}): Promise<WebhookAccepted> {
  const key = options.idempotencyKey ?? randomKey();
  const files = await Promise.all((options.attachments ?? []).map((a) => toPart(a, readFile)));
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers, 'idempotency-key': key };
  const init = (): RequestInit => {
    if (files.length === 0) return { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(alert) };
    // multipart: a `payload` part with the JSON, then one file part per attachment (docs/webhook.md).
    const form = new FormData();
    form.append('payload', JSON.stringify(alert));
    for (const f of files) form.append('file', f.blob, f.name);
    return { method: 'POST', headers, body: form };
  };
  const res = await fetchWithRetry(webhookUrl, init, options);
  return (await res.json()) as WebhookAccepted;
}

async function toPart(a: AttachmentSource | AttachmentInput, readFile: FileReader | undefined): Promise<{ blob: Blob; name: string }> {
  const input: AttachmentInput = isInput(a) ? a : { data: a };
  const { data } = input;
  if (typeof data === 'string') {
    if (!readFile) throw new TypeError(`attachment "${data}": a file path needs Node; pass bytes or a Blob in the browser`);
    const file = await readFile(data);
    return { blob: file.blob, name: input.name ?? file.name };
  }
  const blob = data instanceof Blob ? data : new Blob([data as BlobPart]);
  const named = data as { name?: unknown };
  const fileName = typeof named.name === 'string' ? named.name : undefined;
  return { blob, name: input.name ?? fileName ?? 'attachment' };
}

function isInput(a: AttachmentSource | AttachmentInput): a is AttachmentInput {
  return typeof a === 'object' && a !== null && !(a instanceof Blob) && !(a instanceof Uint8Array) && !(a instanceof ArrayBuffer) && 'data' in a;
}

/** A random key (UUID v4 shape); getRandomValues also works outside secure browser contexts. */
export function randomKey(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
