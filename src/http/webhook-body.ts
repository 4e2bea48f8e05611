import type { ReceivedWebhookBody } from '../domain/webhook/accept-alert.js';
import { resolveAttachments, type ResolvedAttachment } from '../media/attachments.js';
import { parseMultipart } from '../media/multipart.js';
import type { MediaFetcher } from '../media/fetcher.js';
import type { MediaBatch, MediaStore } from '../media/store.js';
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
    private readonly isReferenced: (key: string) => boolean,
  ) {}

  async read(req: Request, kind: 'json' | 'multipart'): Promise<ReceivedWebhookBody> {
    if (kind === 'json') {
      // Nothing is stored until attachments are resolved, so there is nothing to roll back here.
      const bytes = await readBodyCapped(req, this.limits.maxJsonBytes);
      return this.wrap(req, null, parseJson(bytes), [bytes], []);
    }
    const batch = this.store.batch();
    try {
      const { payloadText, uploads } = await parseMultipart(req, { batch });
      const json = parseJson(payloadText, 'the payload part');
      return this.wrap(req, batch, json, [payloadText, ...uploads.map((u) => u.media.sha256)], uploads);
    } catch (err) {
      await batch.rollback(this.isReferenced);
      throw err;
    }
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
      resolveAttachments: async (items) => {
        if (items.length === 0 && uploads.length === 0) return [];
        batch ??= this.store.batch();
        const resolved = await resolveAttachments(items, uploads, { batch, fetcher: this.fetcher, signal: req.signal });
        return resolved.map((r) => ({
          mediaKey: r.media.key,
          mime: r.media.mime,
          kind: r.media.kind,
          name: r.name ?? null,
          size: r.media.size,
        }));
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
