import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { AppError } from '../domain/errors.js';
import type { AttachmentInput } from '../domain/webhook/payload.js';
import { showUrl, type MediaFetcher } from './fetcher.js';
import { MAX_ATTACHMENTS, MEDIA_KINDS, formatBytes, limitFor, tooLargeError, type MediaKind } from './formats.js';
import type { MediaBatch, StoredMedia } from './store.js';

/**
 * Turns a webhook's attachments (JSON items with `url` or base64 `data`, and
 * multipart file parts) into stored media, all inside one MediaBatch so that the
 * caller can roll the whole request back.
 */

/** Cap on a whole multipart request: 10 attachments cannot all be 50 MiB videos. */
export const MAX_REQUEST_BYTES = 110 * 1024 * 1024;

/** Default cap on the JSON `payload` part of a multipart request. */
const MAX_PAYLOAD_BYTES = 1024 * 1024;

/** One item of the webhook's JSON `attachments` array, as the payload schema parsed it. */
export type AttachmentItem = AttachmentInput;

/** A stored attachment with the name the sender gave it (never derived from a source URL). */
export interface ResolvedAttachment {
  media: StoredMedia;
  name: string | null;
}

/** What resolveAttachments needs. */
export interface ResolveContext {
  batch: MediaBatch;
  fetcher: MediaFetcher;
  /** Aborts downloads when the request goes away. */
  signal?: AbortSignal;
}

/**
 * Stores every JSON attachment item (downloads and base64, concurrently) and
 * returns them in item order followed by the multipart uploads. The first failure
 * cancels the rest and is thrown once everything has settled.
 */
export async function resolveAttachments(
  items: readonly AttachmentItem[],
  uploads: readonly ResolvedAttachment[],
  ctx: ResolveContext,
): Promise<ResolvedAttachment[]> {
  const total = items.length + uploads.length;
  if (total > MAX_ATTACHMENTS) {
    throw new AppError(
      'too-many-attachments',
      `${total} attachments (${items.length} in "attachments", ${uploads.length} uploaded); at most ${MAX_ATTACHMENTS} are allowed`,
    );
  }
  items.forEach(validateItem);

  const controller = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([controller.signal, ctx.signal]) : controller.signal;
  let firstError: unknown = null;
  const results = await Promise.all(
    items.map(async (item, i): Promise<ResolvedAttachment | null> => {
      try {
        const label = `attachments[${i}]`;
        const media =
          item.data !== undefined
            ? await ctx.batch.putBuffer(decodeBase64(item.data, i, item.type), { declaredKind: item.type, label })
            : await ctx.fetcher.fetchInto(item.url!, ctx.batch, { declaredKind: item.type, label: `${label} (${showUrl(item.url!, 120)})`, signal });
        return { media, name: item.name ?? null };
      } catch (err) {
        if (firstError === null) {
          firstError = err;
          controller.abort();
        }
        return null;
      }
    }),
  );
  if (firstError !== null) throw firstError;
  return [...(results as ResolvedAttachment[]), ...uploads];
}

function validateItem(item: AttachmentItem, i: number): void {
  const hasUrl = typeof item.url === 'string';
  const hasData = typeof item.data === 'string';
  if (hasUrl === hasData) {
    throw invalid(i, [], hasUrl ? 'give either "url" or "data", not both' : 'an attachment needs "url" or "data"');
  }
  if (item.type !== undefined && !MEDIA_KINDS.includes(item.type)) {
    throw invalid(i, ['type'], `"type" must be one of ${MEDIA_KINDS.join(', ')}`);
  }
}

function invalid(i: number, sub: (string | number)[], message: string, code = 'custom'): AppError {
  const path = ['attachments', i, ...sub];
  return new AppError('invalid-payload', `${path.join('.')}: ${message}`, { details: [{ code, message, path }] });
}

/**
 * Decodes an attachment's base64 `data` (standard or URL-safe alphabet, padding
 * optional, whitespace ignored, `data:...;base64,` prefix allowed). Too-large data
 * is refused from its length, before decoding.
 */
export function decodeBase64(data: string, index: number, declaredKind?: MediaKind): Buffer {
  let text = data;
  const dataUrl = /^data:([^,]*),/i.exec(text.slice(0, 300));
  if (dataUrl) {
    if (!/;base64$/i.test(dataUrl[1]!)) throw invalid(index, ['data'], 'a data: URL must be base64-encoded (";base64,")', 'invalid_base64');
    text = text.slice(dataUrl[0].length);
  }
  text = text.replace(/\s+/g, '');
  const body = text.replace(/={1,2}$/, '');
  const padded = body.length !== text.length;
  if (body.length === 0) throw invalid(index, ['data'], 'the base64 data is empty', 'invalid_base64');
  if (!/^[A-Za-z0-9+/]*$/.test(body) && !/^[A-Za-z0-9_-]*$/.test(body)) {
    throw invalid(index, ['data'], 'not valid base64 (unexpected character)', 'invalid_base64');
  }
  if (body.length % 4 === 1 || (padded && text.length % 4 !== 0)) {
    throw invalid(index, ['data'], 'not valid base64 (wrong length or padding)', 'invalid_base64');
  }
  const decodedSize = Math.floor((body.length * 3) / 4);
  if (decodedSize > limitFor(declaredKind)) throw tooLargeError(declaredKind ?? 'video', `attachments[${index}]`);
  return Buffer.from(body, 'base64');
}

/** Options of parseMultipart. */
export interface ParseMultipartOptions {
  batch: MediaBatch;
  /** Cap on the `payload` part (default 1 MiB). */
  maxPayloadBytes?: number;
  /** Cap on file parts (default MAX_ATTACHMENTS). */
  maxFiles?: number;
  /** Cap on the whole body (default MAX_REQUEST_BYTES). */
  maxRequestBytes?: number;
}

/** A parsed multipart webhook request. */
export interface MultipartResult {
  /** The `payload` part's text (JSON, parsed by the caller). */
  payloadText: string;
  /** The file parts, stored, in part order, named by their filename. */
  uploads: ResolvedAttachment[];
}

/**
 * Reads a multipart/form-data webhook request: the `payload` part (a field, or a
 * file part named "payload") is returned as text; every other file part is
 * streamed straight into the batch with the size limits applied as it arrives.
 * The first error stops reading the request and is thrown once in-flight puts
 * have settled (their files stay in the batch for the caller's rollback).
 * Empty file parts without a filename (an unused form file input) are skipped.
 */
export async function parseMultipart(request: Request, opts: ParseMultipartOptions): Promise<MultipartResult> {
  const maxPayloadBytes = opts.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
  const maxFiles = opts.maxFiles ?? MAX_ATTACHMENTS;
  const maxRequestBytes = opts.maxRequestBytes ?? MAX_REQUEST_BYTES;
  const tooBig = () => new AppError('payload-too-large', `the request body is larger than ${formatBytes(maxRequestBytes)}`);

  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new AppError('invalid-payload', 'expected a multipart/form-data body with a boundary');
  }
  const declaredLength = request.headers.get('content-length');
  if (declaredLength && /^\d+$/.test(declaredLength) && Number(declaredLength) > maxRequestBytes) throw tooBig();
  if (!request.body) throw new AppError('invalid-payload', 'the multipart body is empty');

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8', // browsers send UTF-8 filenames raw, not RFC 5987-encoded
      limits: { fieldSize: maxPayloadBytes, fields: 50, parts: maxFiles + 60, headerPairs: 100, fieldNameSize: 200 },
    });
  } catch (err) {
    throw new AppError('invalid-payload', `malformed multipart Content-Type: ${(err as Error).message}`);
  }
  const source = Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>);

  return new Promise<MultipartResult>((resolve, reject) => {
    const puts = new Set<Promise<unknown>>();
    const uploads: (ResolvedAttachment | undefined)[] = [];
    let payloadText: string | null = null;
    let failure: unknown = null;
    let received = 0;
    let files = 0;
    let parts = 0;
    let closed = false;
    let settled = false;

    const settle = async () => {
      if (settled) return;
      if (failure === null && !closed) return;
      settled = true;
      while (puts.size > 0) await Promise.allSettled([...puts]);
      if (failure !== null) return reject(failure);
      if (payloadText === null) return reject(new AppError('invalid-payload', 'the multipart body has no "payload" part'));
      resolve({ payloadText, uploads: uploads.filter((u): u is ResolvedAttachment => u !== undefined) });
    };

    const fail = (err: unknown) => {
      if (failure !== null) return;
      failure = err;
      // Stop reading the request at once: no more bytes are pulled from the client.
      source.unpipe(parser);
      source.destroy();
      parser.destroy();
      void settle();
    };

    const track = (p: Promise<unknown>) => {
      puts.add(p);
      p.finally(() => puts.delete(p)).catch(() => {});
    };

    source.on('data', (chunk: Uint8Array) => {
      received += chunk.byteLength;
      if (received > maxRequestBytes) fail(tooBig());
    });
    source.on('error', (err) => fail(new AppError('invalid-payload', `the request body could not be read: ${err.message}`)));

    parser.on('field', (name, value, info) => {
      if (failure !== null || name !== 'payload') return;
      if (info.valueTruncated) return fail(payloadTooLarge(maxPayloadBytes));
      if (payloadText !== null) return fail(new AppError('invalid-payload', 'the multipart body has more than one "payload" part'));
      payloadText = value;
    });

    parser.on('file', (name, stream, info) => {
      if (failure !== null) {
        stream.resume();
        return;
      }
      if (name === 'payload') {
        stream.on('error', () => {});
        track(
          readText(stream, maxPayloadBytes).then(
            (text) => {
              if (payloadText !== null) fail(new AppError('invalid-payload', 'the multipart body has more than one "payload" part'));
              else payloadText = text;
            },
            (err) => fail(err),
          ),
        );
        return;
      }
      stream.on('error', () => {}); // errors reach us through the consumer; never unhandled
      const filename = info.filename ?? null;
      const index = parts++;
      const label = filename ? `file "${filename}"` : `file part "${name}"`;
      const store = async (body: AsyncIterable<Uint8Array>) => {
        files++;
        if (files > maxFiles) {
          stream.resume();
          throw new AppError('too-many-attachments', `more than ${maxFiles} files uploaded; at most ${maxFiles} are allowed`);
        }
        const media = await opts.batch.putStream(body, { label });
        uploads[index] = { media, name: filename || null };
      };
      if (filename) {
        track(store(stream).catch(fail));
        return;
      }
      // No filename: a form's unused file input arrives as an empty part. Skip it
      // when it has no bytes; otherwise it is an upload like any other.
      track(
        (async () => {
          const it = (stream as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
          const first = await it.next();
          if (first.done) return;
          await store(prepend(first.value, it));
        })().catch(fail),
      );
    });

    const malformed = (what: string) => fail(new AppError('invalid-payload', `malformed multipart body: ${what}`));
    parser.on('partsLimit', () => malformed('too many parts'));
    parser.on('fieldsLimit', () => malformed('too many fields'));
    parser.on('error', (err) => malformed(err instanceof Error ? err.message : String(err)));
    parser.on('close', () => {
      closed = true;
      void settle();
    });

    source.pipe(parser);
  });
}

function payloadTooLarge(max: number): AppError {
  return new AppError('payload-too-large', `the "payload" part is larger than ${formatBytes(max)}`);
}

/** The chunk already read, then the rest of the iterator. */
async function* prepend(first: Uint8Array, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield first;
    for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
  } finally {
    await rest.return?.();
  }
}

/** Reads a small part as UTF-8, refusing more than `max` bytes. */
async function readText(stream: Readable, max: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw payloadTooLarge(max);
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
