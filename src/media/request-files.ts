import { AppError } from '../domain/errors.js';
import { MAX_ATTACHMENTS, type MediaBatch, type MediaFetcher, type MediaStore, type ReferenceCheck } from '../domain/media.js';
import type { RequestFiles, UploadedFile, WebhookFiles } from '../domain/webhook/request-files.js';
import { resolveAttachments } from './attachments.js';

/**
 * A webhook request's files in the media store: JSON attachment items and drop-in formats' URLs
 * are stored or downloaded into the request's batch (created on first use: a JSON alert without
 * attachments never touches the store), kept when the alert commits, rolled back when it fails.
 */
export class MediaRequestFiles implements WebhookFiles {
  constructor(
    private readonly store: MediaStore,
    private readonly fetcher: MediaFetcher,
    /** Whether any alert still uses a media key (the one check services.ts builds). */
    private readonly isReferenced: ReferenceCheck,
  ) {}

  batch(): MediaBatch {
    return this.store.batch();
  }

  open(signal: () => AbortSignal, uploaded?: { batch: MediaBatch; uploads: UploadedFile[] }): RequestFiles {
    const { store, fetcher, isReferenced } = this;
    const uploads = uploaded?.uploads ?? [];
    let batch = uploaded?.batch ?? null;
    let settled = false;
    return {
      uploadCount: uploads.length,
      async resolveAttachments(items) {
        if (items.length === 0 && uploads.length === 0) return [];
        batch ??= store.batch();
        const resolved = await resolveAttachments(items, uploads, { batch, fetcher, signal: signal() });
        return resolved.map(toRecord);
      },
      async fetchSkipping(urls) {
        const attachments: UploadedFile[] = [];
        const skipped: string[] = [];
        // Uploads come first in the cap: the sender sent those bytes; URLs past the cap are skipped like failures.
        const room = Math.max(0, MAX_ATTACHMENTS - uploads.length);
        for (const [i, url] of urls.entries()) {
          if (i >= room) {
            skipped.push(url);
            continue;
          }
          batch ??= store.batch();
          try {
            attachments.push(...(await resolveAttachments([{ url }], [], { batch, fetcher, signal: signal() })));
          } catch (err) {
            // A sender that cannot shape its body must not lose the alert to a dead image link (issue 14);
            // storage failures (disk full) are not AppErrors and still fail the request.
            if (!(err instanceof AppError)) throw err;
            skipped.push(url);
          }
        }
        return { attachments: [...attachments, ...uploads].map(toRecord), skipped };
      },
      async commit() {
        if (settled) return;
        settled = true;
        await batch?.commit();
      },
      async discard() {
        if (settled) return;
        settled = true;
        await batch?.rollback(isReferenced);
      },
    };
  }
}

const toRecord = (r: UploadedFile) => ({
  mediaKey: r.media.key,
  mime: r.media.mime,
  kind: r.media.kind,
  name: r.name ?? null,
  size: r.media.size,
});
