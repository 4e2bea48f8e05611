import type { Limiter, RateDecision } from '../rate-limiter.js';
import type { AttachmentRecord } from '../alert-store.js';
import { AppError } from '../errors.js';
import { Idempotency } from '../idempotency.js';
import { isStored, type UnmatchedResolve, type WebhookAnswer, type WebhookChannel, type WebhookIngest } from './ingest.js';
import type { Actor } from '../alert-view.js';
import { PAYLOAD_LIMITS, WebhookPayload, type WebhookAlert } from './payload.js';
import type { AlertDraft, GroupCommand, JobCommand } from '../formats/command.js';
import type { FormatIngest, JobOutcome } from './ingest-formats.js';
import type { RequestFiles } from './request-files.js';
import type { WebhookChannels } from './webhook-channels.js';
import { cut } from '../formats/text.js';

/**
 * A webhook body already read off the wire (src/http/webhook-body.ts): its
 * JSON, and the files it brought or names, held in one media batch until the
 * alert that references them commits.
 */
export interface ReceivedWebhookBody {
  json: unknown;
  /** What the Idempotency-Key fingerprint covers: the JSON, plus each uploaded file's hash. */
  fingerprintParts: (string | Uint8Array)[];
  /** Stored and fetched by the media store (src/media/request-files.ts), never by the transport. */
  files: RequestFiles;
}

export interface AcceptAlertDeps {
  /** Answers from memory on SQLite, through a query on PostgreSQL (src/db/{sqlite,pg}/webhook-channels.ts). */
  channels: Pick<WebhookChannels, 'find'>;
  /** Per webhook channel, so one runaway sender cannot monopolise the service (shared by the nodes of a cluster). */
  limiter: Limiter;
  idempotency: Pick<Idempotency, 'begin'>;
  ingest: Pick<WebhookIngest, 'ingest'>;
  formats: Pick<FormatIngest, 'ingestGroup' | 'mergeJob'>;
  avatars: { afterIngest(alertId: string, actor: Actor | null | undefined): unknown };
}

/** The answer stored for an Idempotency-Key, to be repeated as it was. */
export type Replayed = { replayed: true; answerJson: string };

export type AcceptedAlert =
  /** Stored now (or, for a resolve with a dedupKey under which nothing is open, nothing stored: `matched: false`). */
  | { replayed: false; answer: WebhookAnswer | UnmatchedResolve; attachments: AttachmentRecord[] }
  | Replayed;

/** A drop-in format's alert: always stored (its payloads carry no dedupKey). */
export type AcceptedMapped = { replayed: false; answer: WebhookAnswer; attachments: AttachmentRecord[] } | Replayed;

/**
 * "Accept a webhook alert", in two steps around reading the body (which is
 * the transport's job): `admit` finds the channel and counts the request
 * before a byte of the body is read; `accept` claims the Idempotency-Key or
 * replays its answer, resolves the attachments, stores the alert, settles the
 * files and queues the avatar lookup.
 */
export class AcceptWebhookAlert {
  constructor(private readonly deps: AcceptAlertDeps) {}

  /**
   * The channel behind the token, or unknown-token; chat-connected channels
   * refuse webhooks; then the rate limit (`onRate` sees every decision, the
   * refused one too, so the transport can report the window).
   */
  async admit(webhookToken: string, idempotencyKey: string | undefined, onRate: (d: RateDecision) => void): Promise<WebhookChannel> {
    const channel = await this.deps.channels.find(webhookToken);
    if (!channel) throw new AppError('unknown-token');
    if (channel.chatConnected) {
      throw new AppError('channel-is-chat-connected', `#${channel.slug} mirrors a Discord channel; webhook alerts are not accepted there`);
    }
    const rate = await this.deps.limiter.hit(channel.id);
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
  accept(channel: WebhookChannel, alert: WebhookAlert, body: ReceivedWebhookBody, idempotencyKey?: string): Promise<AcceptedAlert> {
    return this.run(channel, body, idempotencyKey, undefined, async (idem) => {
      const attachments = await body.files.resolveAttachments(alert.attachments);
      const answer = await this.deps.ingest.ingest(channel, alert, attachments, idem);
      if (isStored(answer)) this.deps.avatars.afterIngest(answer.alertId, alert.actor);
      return { replayed: false, answer, attachments };
    });
  }

  /**
   * The same path for a drop-in format's mapped alert: its media URLs are
   * fetched after the idempotency claim (a replay fetches nothing), and the
   * ones that fail are skipped and named at the end of the message.
   * `keepSteps`: a GitHub run's update keeps the steps its job events stored.
   */
  acceptMapped(
    channel: WebhookChannel,
    mapped: MappedAlert,
    body: ReceivedWebhookBody,
    idempotencyKey?: string,
    idempotencyWindowMs?: number,
    opts: { keepSteps?: boolean } = {},
  ): Promise<AcceptedMapped> {
    return this.run(channel, body, idempotencyKey, idempotencyWindowMs, async (idem) => {
      const { alert, attachments } = await this.prepare(mapped, body);
      // The formats' drafts have no dedupKey member, so the parsed alert has none: always stored.
      const answer = await this.deps.ingest.ingest(channel, { ...alert, dedupKey: null, resolves: false }, attachments, idem, { ...opts, via: 'integration' });
      if (!isStored(answer)) throw new Error('a mapped alert without a dedupKey is always stored');
      this.deps.avatars.afterIngest(answer.alertId, alert.actor);
      return { replayed: false as const, answer, attachments };
    });
  }

  /** An Alertmanager or Grafana notification: the group's alert, created or updated in place. */
  acceptGroup(channel: WebhookChannel, cmd: GroupCommand, body: ReceivedWebhookBody, idempotencyKey?: string): Promise<AcceptedMapped> {
    return this.run(channel, body, idempotencyKey, undefined, async (idem) => {
      const { alert, attachments } = await this.prepare(cmd, body);
      const answer = await this.deps.formats.ingestGroup(channel, alert, attachments, { key: cmd.groupKey, status: cmd.status, stateFingerprint: cmd.stateFingerprint }, idem);
      return { replayed: false, answer, attachments };
    });
  }

  /** A GitHub workflow_job event: its step merged into the run (created when not stored yet), or ignored after the run finished. */
  acceptJob(channel: WebhookChannel, cmd: JobCommand, body: ReceivedWebhookBody, idempotencyKey?: string, idempotencyWindowMs?: number): Promise<JobOutcome | Replayed> {
    return this.run(channel, body, idempotencyKey, idempotencyWindowMs, async (idem) => {
      const alert = WebhookPayload.parse(cmd.runPayload);
      const outcome = await this.deps.formats.mergeJob(channel, alert, cmd.step, idem);
      if (!outcome.ignored && outcome.answer.workflow?.created) this.deps.avatars.afterIngest(outcome.answer.alertId, alert.actor);
      return outcome;
    });
  }

  private async prepare(mapped: MappedAlert, body: ReceivedWebhookBody) {
    const { attachments, skipped } = await body.files.fetchSkipping(mapped.attachmentUrls);
    return { alert: WebhookPayload.parse(withSkippedNote(mapped.payload, skipped)), attachments };
  }

  /**
   * Claims the Idempotency-Key (or replays its answer), does the work, then
   * keeps the body's files; on any failure the files are discarded.
   */
  private async run<T>(
    channel: WebhookChannel,
    body: ReceivedWebhookBody,
    idempotencyKey: string | undefined,
    idempotencyWindowMs: number | undefined,
    work: (idem: { key: string; hash: string } | undefined) => Promise<T>,
  ): Promise<T | Replayed> {
    try {
      let idem: { key: string; hash: string } | undefined;
      let release: (() => Promise<void>) | undefined;
      if (idempotencyKey !== undefined) {
        const hash = Idempotency.fingerprint(body.fingerprintParts);
        const claim = await this.deps.idempotency.begin(channel.id, idempotencyKey, hash, idempotencyWindowMs);
        if ('replayJson' in claim) {
          await body.files.discard();
          return { replayed: true, answerJson: claim.replayJson };
        }
        release = claim.release;
        idem = { key: idempotencyKey, hash };
      }
      try {
        const result = await work(idem);
        await body.files.commit();
        return result;
      } finally {
        await release?.();
      }
    } catch (err) {
      await body.files.discard();
      throw err;
    }
  }
}

/** A drop-in format's alert: a payload within every limit, and media URLs to fetch. */
export interface MappedAlert {
  payload: AlertDraft;
  attachmentUrls: readonly string[];
}

/** Appends which images were skipped, keeping the message within its limit (the note wins over the tail). */
function withSkippedNote(payload: AlertDraft, skipped: readonly string[]): AlertDraft {
  if (skipped.length === 0) return payload;
  const note = `(${skipped.length === 1 ? '1 image' : `${skipped.length} images`} could not be fetched and ${skipped.length === 1 ? 'was' : 'were'} skipped: ${skipped.join(', ')})`;
  const max = PAYLOAD_LIMITS.message;
  const clippedNote = cut(note, max);
  const room = max - clippedNote.length - 2;
  const head = payload.message ? (room > 0 ? cut(payload.message, room) : '') : '';
  return { ...payload, message: head ? `${head}\n\n${clippedNote}` : clippedNote };
}
