import fsp from 'node:fs/promises';
import { Hono, type Context } from 'hono';
import { AppError } from '../../domain/errors.js';
import type { MediaFileInfo, MediaStore } from '../../media/store.js';
import { problemResponse } from '../problems.js';

/**
 * Serves stored attachments (mounted at /media): immutable, content-addressed
 * files with a strong ETag, conditional GET and single byte ranges, streamed
 * from disk. Types come from the key's extension, which the store derived from
 * the bytes; `nosniff` stops browsers from guessing otherwise.
 */

/** Creates the GET/HEAD /:key routes over a store. */
export function createMediaRoutes(store: MediaStore, publicUrl: string): Hono {
  const app = new Hono();
  const notFound = (c: Context) => problemResponse(c, publicUrl, new AppError('not-found', 'media not found'));

  app.on(['GET', 'HEAD'], '/:key', async (c) => {
    const info = await store.openForRead(c.req.param('key'));
    if (!info) return notFound(c);

    const etag = `"${info.sha256}"`;
    const headers = new Headers({
      'content-type': info.mime,
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
      etag,
      'last-modified': info.mtime.toUTCString(),
      'accept-ranges': 'bytes',
      'content-disposition': `inline; filename="${info.key}"`,
      // A stored file is data, never a document: no scripts even if a browser renders it.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'cross-origin-resource-policy': 'cross-origin',
    });
    const isHead = c.req.method === 'HEAD';

    if (etagMatches(c.req.header('if-none-match'), info.sha256)) {
      headers.delete('content-type');
      headers.delete('content-disposition');
      return new Response(null, { status: 304, headers });
    }

    const rangeHeader = c.req.header('range');
    const ifRange = c.req.header('if-range');
    const honourRange = rangeHeader !== undefined && (ifRange === undefined || ifRange.trim() === etag);
    const range = honourRange ? parseRange(rangeHeader, info.size) : null;

    if (range === 'unsatisfiable') {
      headers.set('content-range', `bytes */${info.size}`);
      headers.delete('content-disposition');
      headers.set('content-length', '0');
      return new Response(null, { status: 416, headers });
    }
    const start = range ? range.start : 0;
    const end = range ? range.end : info.size - 1; // inclusive; -1 for an empty file
    const length = end - start + 1;
    headers.set('content-length', String(length));
    if (range) headers.set('content-range', `bytes ${start}-${end}/${info.size}`);
    const status = range ? 206 : 200;

    if (isHead || length === 0) return new Response(null, { status, headers });
    const body = await fileStream(info, start, end);
    if (!body) return notFound(c); // deleted between stat and open
    return new Response(body, { status, headers });
  });

  app.all('/*', (c) => notFound(c));
  return app;
}

/** If-None-Match: a list of entity tags or `*`, compared weakly (RFC 9110 §13.1.2). */
function etagMatches(header: string | undefined, sha256: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === `"${sha256}"`);
}

/**
 * One `bytes=` range (first-last, first-, -suffix). Returns null to ignore the
 * header (other units, several ranges, bad syntax: the full body is served) and
 * 'unsatisfiable' when it selects nothing.
 */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null;
  const [, a, b] = m as unknown as [string, string, string];
  if (a === '' && b === '') return null;
  if (a === '') {
    const suffix = Number(b);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== '' && Number(b) < start) return null; // invalid range-spec: ignore
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Streams [start, end] of the file as a web stream, pulling only as fast as the client reads. */
async function fileStream(info: MediaFileInfo, start: number, end: number): Promise<ReadableStream<Uint8Array> | null> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(info.path, 'r');
  } catch {
    return null;
  }
  let pos = start;
  const close = () => fh.close().catch(() => {});
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const want = Math.min(64 * 1024, end - pos + 1);
        if (want <= 0) {
          await close();
          controller.close();
          return;
        }
        const buf = new Uint8Array(want);
        const { bytesRead } = await fh.read(buf, 0, want, pos);
        if (bytesRead === 0) {
          await close();
          controller.error(new Error('media file shorter than expected'));
          return;
        }
        pos += bytesRead;
        controller.enqueue(buf.subarray(0, bytesRead));
        if (pos > end) {
          await close();
          controller.close();
        }
      } catch (err) {
        await close();
        controller.error(err);
      }
    },
    cancel: close,
  });
}
