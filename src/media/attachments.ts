import { AppError } from '../domain/errors.js';
import type { AttachmentInput } from '../domain/webhook/payload.js';
import { showUrl } from './fetcher.js';
import { type MediaFetcher, MAX_ATTACHMENTS, MEDIA_KINDS, type MediaKind, type MediaBatch, type StoredMedia } from '../domain/media.js';
import { limitFor, tooLargeError } from './formats.js';

/**
 * Turns a webhook's attachments (JSON items with `url` or base64 `data`, and
 * the multipart file parts ./multipart.ts stored) into stored media, all inside
 * one MediaBatch so that the caller can roll the whole request back.
 */

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
