import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { AppError } from '../domain/errors.js';
import type { ResolvedAttachment } from './attachments.js';
import { formatBytes } from '../lib/bytes.js';
import { MAX_ATTACHMENTS, type MediaBatch } from '../domain/media.js';

/** Cap on a whole multipart request: 10 attachments cannot all be 50 MiB videos. */
export const MAX_REQUEST_BYTES = 110 * 1024 * 1024;

/** Default cap on the JSON `payload` part of a multipart request. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/** Options of parseMultipart. */
export interface ParseMultipartOptions {
  batch: MediaBatch;
  /** Cap on the `payload` part (default MAX_PAYLOAD_BYTES). */
  maxPayloadBytes?: number;
  /** Cap on file parts (default MAX_ATTACHMENTS). */
  maxFiles?: number;
  /** Cap on the whole body (default MAX_REQUEST_BYTES). */
  maxRequestBytes?: number;
  /** The JSON part's name: `payload`, or Discord's `payload_json` on /discord. */
  payloadPart?: string;
}

/** A parsed multipart webhook request. */
export interface MultipartResult {
  /** The `payload` part's text (JSON, parsed by the caller). */
  payloadText: string;
  /** The file parts, stored, in part order, named by their filename. */
  uploads: ResolvedAttachment[];
}

type Limits = Required<Omit<ParseMultipartOptions, 'batch'>>;

/**
 * Reads a multipart/form-data webhook request: the `payload` part (a field, or a
 * file part named "payload") is returned as text; every other file part is
 * streamed straight into the batch with the size limits applied as it arrives.
 * The first error stops reading the request and is thrown once in-flight puts
 * have settled (their files stay in the batch for the caller's rollback).
 * Empty file parts without a filename (an unused form file input) are skipped.
 */
export async function parseMultipart(request: Request, opts: ParseMultipartOptions): Promise<MultipartResult> {
  const limits: Limits = {
    maxPayloadBytes: opts.maxPayloadBytes ?? MAX_PAYLOAD_BYTES,
    maxFiles: opts.maxFiles ?? MAX_ATTACHMENTS,
    maxRequestBytes: opts.maxRequestBytes ?? MAX_REQUEST_BYTES,
    payloadPart: opts.payloadPart ?? 'payload',
  };
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new AppError('invalid-payload', 'expected a multipart/form-data body with a boundary');
  }
  const declaredLength = request.headers.get('content-length');
  if (declaredLength && /^\d+$/.test(declaredLength) && Number(declaredLength) > limits.maxRequestBytes) {
    throw requestTooLarge(limits.maxRequestBytes);
  }
  if (!request.body) throw new AppError('invalid-payload', 'the multipart body is empty');
  const parser = createParser(contentType, limits);
  const source = Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>);
  return new MultipartReader(source, parser, opts.batch, limits).result;
}

function createParser(contentType: string, limits: Limits): busboy.Busboy {
  try {
    return busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8', // browsers send UTF-8 filenames raw, not RFC 5987-encoded
      limits: { fieldSize: limits.maxPayloadBytes, fields: 50, parts: limits.maxFiles + 60, headerPairs: 100, fieldNameSize: 200 },
    });
  } catch (err) {
    throw new AppError('invalid-payload', `malformed multipart Content-Type: ${(err as Error).message}`);
  }
}

/**
 * One request being read. It moves through three phases: `reading` while the
 * parser runs; `finishing` once the parser closed or the first failure stopped
 * it, while the stores already started settle (a failure then still counts);
 * `done` once `result` is settled.
 */
class MultipartReader {
  readonly result: Promise<MultipartResult>;
  #phase: 'reading' | 'finishing' | 'done' = 'reading';
  #failure: unknown = null;
  #payloadText: string | null = null;
  /** Indexed by file part order, so concurrent stores keep the sender's order. */
  readonly #uploads: (ResolvedAttachment | undefined)[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  #receivedBytes = 0;
  #fileParts = 0;
  #storedFiles = 0;
  #resolve!: (r: MultipartResult) => void;
  #reject!: (err: unknown) => void;

  constructor(
    private readonly source: Readable,
    private readonly parser: busboy.Busboy,
    private readonly batch: MediaBatch,
    private readonly limits: Limits,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    source.on('data', (chunk: Uint8Array) => this.#countBytes(chunk.byteLength));
    source.on('error', (err) => this.#fail(new AppError('invalid-payload', `the request body could not be read: ${err.message}`)));
    parser.on('field', (name, value, info) => this.#onField(name, value, info.valueTruncated));
    parser.on('file', (name, stream, info) => this.#onFile(name, stream, info.filename ?? null));
    parser.on('partsLimit', () => this.#malformed('too many parts'));
    parser.on('fieldsLimit', () => this.#malformed('too many fields'));
    parser.on('error', (err) => this.#malformed(err instanceof Error ? err.message : String(err)));
    parser.on('close', () => void this.#finish());
    source.pipe(parser);
  }

  #countBytes(n: number): void {
    this.#receivedBytes += n;
    if (this.#receivedBytes > this.limits.maxRequestBytes) this.#fail(requestTooLarge(this.limits.maxRequestBytes));
  }

  #onField(name: string, value: string, truncated: boolean): void {
    if (this.#failure !== null || name !== this.limits.payloadPart) return;
    if (truncated) return this.#fail(payloadTooLarge(this.limits.maxPayloadBytes));
    this.#setPayload(value);
  }

  #onFile(name: string, stream: Readable, filename: string | null): void {
    if (this.#failure !== null) {
      stream.resume();
      return;
    }
    stream.on('error', () => {}); // errors reach us through the consumer; never unhandled
    if (name === this.limits.payloadPart) {
      this.#track(readText(stream, this.limits.maxPayloadBytes).then((text) => this.#setPayload(text)));
      return;
    }
    const index = this.#fileParts++;
    const label = filename ? `file "${filename}"` : `file part "${name}"`;
    const store = (body: AsyncIterable<Uint8Array>) => this.#store(index, body, stream, label, filename);
    // No filename: a form's unused file input arrives as an empty part. Skip it
    // when it has no bytes; otherwise it is an upload like any other.
    this.#track(filename ? store(stream) : skipIfEmpty(stream, store));
  }

  async #store(index: number, body: AsyncIterable<Uint8Array>, stream: Readable, label: string, filename: string | null): Promise<void> {
    if (++this.#storedFiles > this.limits.maxFiles) {
      stream.resume();
      const max = this.limits.maxFiles;
      throw new AppError('too-many-attachments', `more than ${max} files uploaded; at most ${max} are allowed`);
    }
    const media = await this.batch.putStream(body, { label });
    this.#uploads[index] = { media, name: filename || null };
  }

  #setPayload(text: string): void {
    if (this.#payloadText !== null) return this.#fail(new AppError('invalid-payload', `the multipart body has more than one "${this.limits.payloadPart}" part`));
    this.#payloadText = text;
  }

  /** Runs a part's work; its failure fails the request. */
  #track(work: Promise<unknown>): void {
    const p = work.catch((err: unknown) => this.#fail(err));
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  #malformed(what: string): void {
    this.#fail(new AppError('invalid-payload', `malformed multipart body: ${what}`));
  }

  /** The first failure wins; while reading, it also stops pulling bytes from the client at once. */
  #fail(err: unknown): void {
    if (this.#failure !== null) return;
    this.#failure = err;
    if (this.#phase !== 'reading') return;
    this.source.unpipe(this.parser);
    this.source.destroy();
    this.parser.destroy();
    void this.#finish();
  }

  async #finish(): Promise<void> {
    if (this.#phase !== 'reading') return;
    this.#phase = 'finishing';
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    this.#phase = 'done';
    if (this.#failure !== null) return this.#reject(this.#failure);
    if (this.#payloadText === null) return this.#reject(new AppError('invalid-payload', `the multipart body has no "${this.limits.payloadPart}" part`));
    this.#resolve({ payloadText: this.#payloadText, uploads: this.#uploads.filter((u): u is ResolvedAttachment => u !== undefined) });
  }
}

/** Stores the part unless it has no bytes at all. */
async function skipIfEmpty(stream: Readable, store: (body: AsyncIterable<Uint8Array>) => Promise<void>): Promise<void> {
  const it = (stream as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  await store(prepend(first.value, it));
}

function requestTooLarge(max: number): AppError {
  return new AppError('payload-too-large', `the request body is larger than ${formatBytes(max)}`);
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
