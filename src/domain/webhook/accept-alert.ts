import type { RateDecision } from '../../lib/rate-limiter.js';
import type { AttachmentRecord } from '../alert-store.js';
import { AppError } from '../errors.js';
import { Idempotency } from '../idempotency.js';
import type { WebhookAnswer, WebhookChannel, WebhookIngest } from './ingest.js';
import type { Actor } from '../alert-view.js';
import type { AttachmentInput, WebhookAlert } from './payload.js';

/**
 * A webhook body already read off the wire (src/http/webhook-body.ts): its
 * JSON, and the files it brought or names, held in one media batch until the
 * alert that references them commits.
 */
export interface ReceivedWebhookBody {
  json: unknown;
  /** What the Idempotency-Key fingerprint covers: the JSON, plus each uploaded file's hash. */
  fingerprintParts: (string | Uint8Array)[];
  /** Stores `attachments[]` items (URL downloads, base64) after the multipart uploads. */
  resolveAttachments(items: AttachmentInput[]): Promise<AttachmentRecord[]>;
  /** The alert that references the files committed. */
  commit(): Promise<void>;
  /** The request failed: remove the files it created that nothing references. */
  discard(): Promise<void>;
}

export interface AcceptAlertDeps {
  channels: { find(webhookToken: string): WebhookChannel | undefined };
  /** Per webhook channel, so one runaway sender cannot monopolise the service. */
  limiter: { hit(key: string): RateDecision };
  idempotency: Pick<Idempotency, 'begin'>;
  ingest: Pick<WebhookIngest, 'ingest'>;
  avatars: { afterIngest(alertId: string, actor: Actor | null | undefined): unknown };
}

export type AcceptedAlert =
  /** Stored now. */
  | { replayed: false; answer: WebhookAnswer }
  /** The answer stored for this Idempotency-Key, to be repeated as it was. */
  | { replayed: true; answerJson: string };

/**
 * "Accept a webhook alert", in two steps around reading the body (which is
 * the transport's job): `admit` finds the channel and counts the request
 * before a byte of the body is read; `accept` claims the Idempotency-Key or
 * replays its answer, resolves the attachments, stores the alert, settles the
 * files and queues the avatar lookup.
 */
export class AcceptWebhookAlert {
  constructor(private readonly d: AcceptAlertDeps) {}

  /**
   * The channel behind the token, or unknown-token; chat-connected channels
   * refuse webhooks; then the rate limit (`onRate` sees every decision, the
   * refused one too, so the transport can report the window).
   */
  admit(webhookToken: string, idempotencyKey: string | undefined, onRate: (d: RateDecision) => void): WebhookChannel {
    const channel = this.d.channels.find(webhookToken);
    if (!channel) throw new AppError('unknown-token');
    if (channel.chatConnected) {
      throw new AppError('channel-is-chat-connected', `#${channel.slug} mirrors a Discord channel; webhook alerts are not accepted there`);
    }
    const rate = this.d.limiter.hit(channel.id);
    onRate(rate);
    if (!rate.allowed) {
      throw new AppError('rate-limited', `this webhook accepts ${rate.limit} requests per minute; retry in ${rate.resetSeconds} s`, {
        retryAfter: rate.resetSeconds,
      });
    }
    if (idempotencyKey !== undefined) Idempotency.validateKey(idempotencyKey);
    return channel;
  }

  /** Resolves after COMMIT. Whatever happens, the body's files are settled (kept only when the alert committed). */
  async accept(channel: WebhookChannel, alert: WebhookAlert, body: ReceivedWebhookBody, idempotencyKey?: string): Promise<AcceptedAlert> {
    try {
      let idem: { key: string; hash: string } | undefined;
      let release: (() => void) | undefined;
      if (idempotencyKey !== undefined) {
        const hash = Idempotency.fingerprint(body.fingerprintParts);
        const claim = await this.d.idempotency.begin(channel.id, idempotencyKey, hash);
        if ('replayJson' in claim) {
          await body.discard();
          return { replayed: true, answerJson: claim.replayJson };
        }
        release = claim.release;
        idem = { key: idempotencyKey, hash };
      }
      try {
        const attachments = await body.resolveAttachments(alert.attachments);
        const answer = await this.d.ingest.ingest(channel, alert, attachments, idem);
        await body.commit();
        this.d.avatars.afterIngest(answer.alertId, alert.actor);
        return { replayed: false, answer };
      } finally {
        release?.();
      }
    } catch (err) {
      await body.discard();
      throw err;
    }
  }
}
