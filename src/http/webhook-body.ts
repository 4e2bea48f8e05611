import type { ReceivedWebhookBody } from '../domain/webhook/accept-alert.js';
import type { WebhookFiles } from '../domain/webhook/request-files.js';
import { parseMultipart } from '../media/multipart.js';
import { parseJson, readBodyCapped } from './body.js';

/** JSON webhook bodies may carry base64 attachments; bigger files go through multipart or a URL. */
export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

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
    private readonly files: WebhookFiles,
    private readonly limits: BodyLimits,
  ) {}

  /** `payloadPart` names the multipart JSON part (Discord's senders call it `payload_json`). */
  async read(req: Request, kind: 'json' | 'multipart', payloadPart = 'payload'): Promise<ReceivedWebhookBody> {
    if (kind === 'json') {
      // Nothing is stored until attachments are resolved, so there is nothing to roll back here.
      const bytes = await readBodyCapped(req, this.limits.maxJsonBytes);
      return { json: parseJson(bytes), fingerprintParts: [bytes], files: this.files.open(() => req.signal) };
    }
    const batch = this.files.batch();
    try {
      const { payloadText, uploads } = await parseMultipart(req, { batch, payloadPart });
      const json = parseJson(payloadText, `the ${payloadPart} part`);
      return { json, fingerprintParts: [payloadText, ...uploads.map((u) => u.media.sha256)], files: this.files.open(() => req.signal, { batch, uploads }) };
    } catch (err) {
      await this.files.open(() => req.signal, { batch, uploads: [] }).discard();
      throw err;
    }
  }

  /**
   * A body the route read itself (GitHub's: the signature covers the raw
   * bytes, and the JSON may sit in a form field). It brings no files.
   */
  fromBytes(req: Request, json: unknown, bytes: Uint8Array): ReceivedWebhookBody {
    return { json, fingerprintParts: [bytes], files: this.files.open(() => req.signal) };
  }
}
