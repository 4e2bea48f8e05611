import type { ReceivedWebhookBody } from '../domain/webhook/accept-alert.js';
import { AppError } from '../domain/errors.js';
import { resolveAttachments, type ResolvedAttachment } from '../media/attachments.js';
import { MAX_ATTACHMENTS } from '../media/formats.js';
import { parseMultipart } from '../media/multipart.js';
import type { MediaFetcher } from '../media/fetcher.js';
import type { MediaBatch, MediaStore, ReferenceCheck } from '../media/store.js';
import { parseJson, readBodyCapped } from './body.js';

export interface BodyLimits {
  maxJsonBytes: number;
}

/**
 * Reads webhook bodies in either form (JSON, or multipart with a `payload`
 * part and file parts streamed straight into the media store) so the route
 * and the accept-alert use case never see the difference.
 */
export class WebhookBodyReader {
  constructor(
    private readonly store: MediaStore,
    private readonly fetcher: MediaFetcher,
    private readonly limits: BodyLimits,
    /** Whether any alert still uses a media key (the one check services.ts builds). */
    private readonly isReferenced: ReferenceCheck,
  ) {}

  /** `payloadPart` names the multipart JSON part (Discord's senders call it `payload_json`). */
  async read(req: Request, kind: 'json' | 'multipart', payloadPart = 'payload'): Promise<ReceivedWebhookBody> {
    if (kind === 'json') {
      // Nothing is stored until attachments are resolved, so there is nothing to roll back here.
      const bytes = await readBodyCapped(req, this.limits.maxJsonBytes);
      return this.wrap(req, null, parseJson(bytes), [bytes], []);
    }
    const batch = this.store.batch();
    try {
      const { payloadText, uploads } = await parseMultipart(req, { batch, payloadPart });
      const json = parseJson(payloadText, `the ${payloadPart} part`);
      return this.wrap(req, batch, json, [payloadText, ...uploads.map((u) => u.media.sha256)], uploads);
    } catch (err) {
      await batch.rollback(this.isReferenced);
      throw err;
    }
  }

  /**
   * A body the route read itself (GitHub's: the signature covers the raw
   * bytes, and the JSON may sit in a form field). It brings no files.
   */
  fromBytes(req: Request, json: unknown, bytes: Uint8Array): ReceivedWebhookBody {
    return this.wrap(req, null, json, [bytes], []);
  }

  /**
   * `batch` is created on first use: a JSON alert without attachments never
   * touches the media store. Downloads stop when the sender hangs up.
   */
  private wrap(req: Request, existing: MediaBatch | null, json: unknown, fingerprintParts: (string | Uint8Array)[], uploads: ResolvedAttachment[]): ReceivedWebhookBody {
    let settled = false;
    let batch = existing;
    return {
      json,
      fingerprintParts,
      uploadCount: uploads.length,
      resolveAttachments: async (items) => {
        if (items.length === 0 && uploads.length === 0) return [];
        batch ??= this.store.batch();
        const resolved = await resolveAttachments(items, uploads, { batch, fetcher: this.fetcher, signal: req.signal });
        return resolved.map(toRecord);
      },
      fetchSkipping: async (urls) => {
        const attachments: ResolvedAttachment[] = [];
        const skipped: string[] = [];
        // Uploads come first in the cap: the sender sent those bytes; URLs past the cap are skipped like failures.
        const room = Math.max(0, MAX_ATTACHMENTS - uploads.length);
        for (const [i, url] of urls.entries()) {
          if (i >= room) {
            skipped.push(url);
            continue;
          }
          batch ??= this.store.batch();
          try {
            attachments.push(...(await resolveAttachments([{ url }], [], { batch, fetcher: this.fetcher, signal: req.signal })));
          } catch (err) {
            // A sender that cannot shape its body must not lose the alert to a dead image link (issue 14);
            // storage failures (disk full) are not AppErrors and still fail the request.
            if (!(err instanceof AppError)) throw err;
            skipped.push(url);
          }
        }
        return { attachments: [...attachments, ...uploads].map(toRecord), skipped };
      },
      commit: async () => {
        if (settled) return;
        settled = true;
        await batch?.commit();
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        await batch?.rollback(this.isReferenced);
      },
    };
  }
}

const toRecord = (r: ResolvedAttachment) => ({
  mediaKey: r.media.key,
  mime: r.media.mime,
  kind: r.media.kind,
  name: r.name ?? null,
  size: r.media.size,
});
