import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { AlertContent, AlertLevel, AttachmentRecord, KeyedUpdate, NewStandardAlert, RunState, RunUpdate, StoredKeyed, StoredRun, WebhookAlertWrites } from '../alert-store.js';
import type { LifecycleActor, LifecycleVia } from '../alert-lifecycle.js';
import type { ChangeBus } from '../changes.js';
import { AppError } from '../errors.js';
import type { WebhookAlert } from './payload.js';

export type { AttachmentRecord } from '../alert-store.js';

/** The channel a webhook token selects. */
export interface WebhookChannel {
  id: string;
  name: string;
  slug: string;
  workspaceId: string;
  workspaceName: string;
  chatConnected: boolean;
  /** GitHub's webhook secret, when the channel has one (never logged). */
  signingSecret?: string | null;
}

/** What an accepted webhook POST answers (and what an Idempotency-Key replay repeats). */
export interface WebhookAnswer {
  success: true;
  alertId: string;
  destination: { workspace: { id: string; name: string }; channel: { id: string; name: string; slug: string } };
  workflow?: { runId: string; state: RunState; created: boolean };
  /** Alertmanager and Grafana: the group's state now; `repeat` when nothing changed (src/domain/webhook/ingest-formats.ts). */
  group?: { status: 'firing' | 'resolved'; created: boolean; repeat: boolean };
}

/** A resolve for a key with nothing open: nothing stored (answered 202, docs/handling-alerts.md). */
export interface UnmatchedResolve {
  success: true;
  matched: false;
}

export const isStored = (a: WebhookAnswer | UnmatchedResolve): a is WebhookAnswer => 'alertId' in a;

/** Ingest options: `keepSteps` for GitHub's run updates; `via` where the lifecycle history says a source's change came from. */
export interface IngestOptions {
  keepSteps?: boolean;
  via?: LifecycleVia;
}

/** The level a run state shows: a failed run can never look like a success. */
export const LEVEL_OF_RUN_STATE = { running: 'INFO', passed: 'SUCCESS', failed: 'ERROR' } as const;

export interface WebhookIngestDeps {
  store: WebhookAlertWrites;
  ids: IdGenerator;
  clock: Clock;
  bus: ChangeBus;
  /** Removes files no alert references any more; called after COMMIT. */
  releaseMedia(keys: string[]): void;
}

/**
 * Stores webhook alerts and workflow runs. Each call is one store unit: the
 * alert, its attachments, the billing count, the outbox row, the stream event
 * and the idempotency answer commit together or not at all. The wake-ups and
 * the media clean-up happen after the commit.
 */
export class WebhookIngest {
  constructor(private readonly deps: WebhookIngestDeps) {}

  /** Resolves after COMMIT. */
  async ingest(
    channel: WebhookChannel,
    alert: WebhookAlert,
    attachments: AttachmentRecord[],
    idem?: { key: string; hash: string },
    opts: IngestOptions = {},
  ): Promise<WebhookAnswer | UnmatchedResolve> {
    const wf = alert.workflow;
    const answer = (stored: StoredRun) => answerOf(stored, channel, wf ? { runId: wf.runId, state: wf.state } : undefined);
    const write: NewStandardAlert = {
      alertId: this.deps.ids.next('alt'),
      channelId: channel.id,
      workspaceId: channel.workspaceId,
      // GitHub's workflow_run carries no steps (they come from workflow_job): null keeps the stored ones.
      content: { ...contentOf(alert), ...(opts.keepSteps && wf ? { workflowStepsJson: null } : {}) },
      attachments,
      notify: wf ? (wf.state === 'running' ? 'workflow.started' : 'workflow.finished') : 'alert.created',
      idempotency: idem && { ...idem, answer },
      now: this.deps.clock.now(),
    };
    let notified = true;
    let stored: StoredRun;
    const actor = sourceActor(alert.source, wf ? 'Workflow' : 'Webhook');
    const via = opts.via ?? 'webhook';
    // A run first reported `passed` is created resolved, as the same POST after `running` would resolve it.
    if (wf?.state === 'passed') write.lifecycleOnInsert = { to: 'resolved', actor, via, countOccurrence: false };
    if (alert.dedupKey !== null) {
      const keyed = await this.deps.store.saveKeyed(write, alert.dedupKey, (current) =>
        keyedUpdate(current, alert.level, alert.resolves, { actor, via }, () => this.deps.ids.next('alt')),
      );
      if (!keyed) return { success: true, matched: false };
      notified = keyed.notified;
      stored = keyed;
      if (keyed.released.length) this.deps.releaseMedia(keyed.released);
    } else if (wf) {
      const run = await this.deps.store.saveRun(write, (current) => ({
        ...this.runUpdate(wf.runId, current, wf.state),
        // A run that passed closes its alert; a person's resolve of a running one holds.
        ...(current === 'running' && wf.state === 'passed' ? { lifecycle: { to: 'resolved', actor, via, countOccurrence: false } } : {}),
      }));
      notified = run.notified;
      stored = run;
      if (run.released.length) this.deps.releaseMedia(run.released);
    } else {
      stored = await this.deps.store.insertAlert(write);
    }
    this.deps.bus.emit('alert-events');
    if (notified) this.deps.bus.emit('notifications');
    return answer(stored);
  }

  /**
   * The spec's state table for a POST to an existing run. After a terminal
   * state the same state again is a retry (silent, no second notification);
   * any other state is refused (use a new runId for a re-run).
   */
  private runUpdate(runId: string, current: RunState, next: RunState): RunUpdate {
    const terminal = current !== 'running';
    if (terminal && next !== current) {
      throw new AppError('workflow-run-finished', `run ${runId} already ${current}; it cannot become ${next}. Report a re-run under a new runId.`);
    }
    const finishing = !terminal && next !== 'running';
    return finishing ? { resurfaceAs: this.deps.ids.next('alt'), notify: 'workflow.finished' } : { resurfaceAs: null, notify: null };
  }
}

/** A sender or integration as the lifecycle names it: its `source`, else what it is. */
export function sourceActor(source: string | null, fallback: string): LifecycleActor {
  return { id: null, name: source ?? fallback };
}

const LEVEL_RANK: Record<AlertLevel, number> = { SUCCESS: 0, INFO: 1, WARNING: 2, ERROR: 3 };

/**
 * The state table of a POST with a dedupKey against the alert stored under it (docs/handling-alerts.md):
 * none stored → a new alert (a resolve stores nothing: null); resolved → the same POST reopens it
 * (unread, notified, billed) unless it is another resolve (null); open or acknowledged → a resolve
 * resolves it (unread, notified once), anything else updates it in place, silently unless the level
 * rose. Every non-resolve POST counts one more occurrence.
 */
export function keyedUpdate(
  stored: StoredKeyed | undefined,
  level: AlertLevel,
  resolves: boolean,
  source: { actor: LifecycleActor; via: LifecycleVia },
  freshKey: () => string,
): KeyedUpdate | null {
  const move = (to: 'open' | 'resolved' | null, countOccurrence: boolean) => ({ to, countOccurrence, ...source });
  if (stored === undefined) return resolves ? null : { resurfaceAs: null, notify: 'alert.created', countUsage: false, lifecycle: move(null, false) };
  if (stored.status === 'resolved') {
    return resolves ? null : { resurfaceAs: freshKey(), notify: 'alert.created', countUsage: true, lifecycle: move('open', true) };
  }
  if (resolves) return { resurfaceAs: freshKey(), notify: 'alert.resolved', countUsage: false, lifecycle: move('resolved', false) };
  const rose = LEVEL_RANK[level] > LEVEL_RANK[stored.level];
  return { resurfaceAs: rose ? freshKey() : null, notify: rose ? 'alert.created' : null, countUsage: false, lifecycle: move(null, true) };
}

/** The stored columns of an alert; a run's level follows its state. */
export function contentOf(alert: WebhookAlert): AlertContent {
  // What is stored as sent (title, emoji, message, link, source, and any plain field added later)
  // passes through; the members below are encoded for their columns. A payload member that is not
  // stored at all belongs in this list too.
  const { fields, metadata, actor, attachments, workflow: wf, ...storedAsSent } = alert;
  void attachments;
  return {
    ...storedAsSent,
    level: wf ? LEVEL_OF_RUN_STATE[wf.state] : alert.level,
    fieldsJson: fields.length ? JSON.stringify(fields) : null,
    metadataJson: metadata ? JSON.stringify(metadata) : null,
    actorJson: actor ? storedActorJson(actor) : null,
    workflowRunId: wf?.runId ?? null,
    workflowState: wf?.state ?? null,
    workflowStepsJson: wf ? JSON.stringify(wf.steps) : null,
    workflowError: wf?.error ?? null,
    dedupKey: alert.dedupKey,
  };
}

/**
 * The actor as stored: without the sender's `avatarUrl`. The avatar mirror
 * (avatars.ts) downloads that picture and stores our copy's URL in its place,
 * so a page or an e-mail never makes a viewer contact the sender's host, and
 * the read API shows our copy as it shows attachments (never the source URL).
 */
function storedActorJson(actor: NonNullable<WebhookAlert['actor']>): string {
  if (actor.avatarUrl === undefined) return JSON.stringify(actor);
  const { avatarUrl: _source, ...rest } = actor;
  return JSON.stringify(rest);
}

/** `workflow.created` tells a new run from an update. */
export function answerOf(stored: StoredRun, channel: WebhookChannel, run?: { runId: string; state: RunState }): WebhookAnswer {
  return {
    success: true,
    alertId: stored.alertId,
    destination: {
      workspace: { id: channel.workspaceId, name: channel.workspaceName },
      channel: { id: channel.id, name: channel.name, slug: channel.slug },
    },
    ...(run ? { workflow: { ...run, created: stored.created } } : {}),
  };
}
