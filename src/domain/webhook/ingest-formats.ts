import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { AlertGroupWrites, GroupStatus, GroupUpdate, StoredGroupState } from '../alert-groups.js';
import type { AttachmentRecord, NewStandardAlert } from '../alert-store.js';
import type { ChangeBus } from '../changes.js';
import type { DraftStep } from '../formats/command.js';
import { PAYLOAD_LIMITS, type WebhookAlert } from './payload.js';
import { answerOf, contentOf, sourceActor, type WebhookAnswer, type WebhookChannel } from './ingest.js';
import type { LifecycleActor } from '../alert-lifecycle.js';

export interface FormatIngestDeps {
  store: AlertGroupWrites;
  ids: IdGenerator;
  clock: Clock;
  bus: ChangeBus;
  releaseMedia(keys: string[]): void;
}

type Idem = { key: string; hash: string };

/** What a GitHub job event did: merged (or created the run), or ignored because the run already finished. */
export type JobOutcome = { replayed: false; ignored: false; answer: WebhookAnswer } | { replayed: false; ignored: true; alertId: string };

/**
 * The two in-place writes of the drop-in formats (issue 14):
 *
 * - Alertmanager/Grafana groups, one alert per group key. The state table:
 *   same status and alerts as stored (a repeat) → nothing; firing after
 *   resolved → reopened (unread, notified, one more usage event); resolved
 *   after firing → success, unread, notified; any other change (alerts joining
 *   or leaving a firing group) → updated in place silently.
 * - GitHub workflow_job events merged into the run's steps, keyed by job name.
 */
export class FormatIngest {
  constructor(private readonly deps: FormatIngestDeps) {}

  /** Resolves after COMMIT. */
  async ingestGroup(
    channel: WebhookChannel,
    alert: WebhookAlert,
    attachments: AttachmentRecord[],
    group: { key: string; status: GroupStatus; stateFingerprint: string },
    idem?: Idem,
  ): Promise<WebhookAnswer> {
    let repeat = false;
    const write: NewStandardAlert = {
      alertId: this.deps.ids.next('alt'),
      channelId: channel.id,
      workspaceId: channel.workspaceId,
      content: contentOf(alert),
      attachments,
      notify: 'alert.created',
      idempotency: idem && { ...idem, answer: (stored) => ({ ...answerOf(stored, channel), group: { status: group.status, created: stored.created, repeat } }) },
      now: this.deps.clock.now(),
    };
    const actor = sourceActor(alert.source, 'Integration');
    // A group first seen resolved is stored resolved (by the integration), as its resolve after firing would leave it.
    if (group.status === 'resolved') write.lifecycleOnInsert = { to: 'resolved', actor, via: 'integration', countOccurrence: false };
    const saved = await this.deps.store.saveGroup(write, group, (stored) => {
      const update = groupUpdate(stored, group, () => this.deps.ids.next('alt'), actor);
      // Reset at each run: the unit may run twice.
      repeat = update.repeat;
      return update;
    });
    if (saved.released.length) this.deps.releaseMedia(saved.released);
    if (saved.changed) this.deps.bus.emit('alert-events');
    if (saved.notified) this.deps.bus.emit('notifications');
    return { ...answerOf(saved, channel), group: { status: group.status, created: saved.created, repeat: !saved.changed } };
  }

  /** Resolves after COMMIT. `alert` is the run to create when the job's run is not stored yet. */
  async mergeJob(channel: WebhookChannel, alert: WebhookAlert, step: DraftStep, idem?: Idem): Promise<JobOutcome> {
    const wf = alert.workflow!;
    const content = { ...contentOf(alert), workflowStepsJson: JSON.stringify([step]) };
    const write: NewStandardAlert = {
      alertId: this.deps.ids.next('alt'),
      channelId: channel.id,
      workspaceId: channel.workspaceId,
      content,
      attachments: [],
      notify: 'workflow.started',
      idempotency: idem && { ...idem, answer: (stored) => answerOf(stored, channel, { runId: wf.runId, state: 'running' }) },
      now: this.deps.clock.now(),
    };
    const merged = await this.deps.store.mergeRunStep(write, (stored) => (stored.state !== 'running' ? null : JSON.stringify(mergeStep(stored.stepsJson, step))));
    if (merged.ignored) return { replayed: false, ignored: true, alertId: merged.alertId };
    this.deps.bus.emit('alert-events');
    if (merged.created) this.deps.bus.emit('notifications');
    return { replayed: false, ignored: false, answer: answerOf(merged, channel, { runId: wf.runId, state: 'running' }) };
  }
}

/** The state table of a group notification against the stored state. */
/**
 * The lifecycle follows the group's status changes only: resolved resolves the alert (by the
 * integration), firing again reopens it; a person's resolve of a firing group therefore holds through
 * its repeats and in-place changes, until the group's own status changes.
 */
export function groupUpdate(stored: StoredGroupState, next: StoredGroupState, freshKey: () => string, actor: LifecycleActor = { id: null, name: 'Integration' }): GroupUpdate {
  if (stored.stateFingerprint === next.stateFingerprint && stored.status === next.status) return { repeat: true };
  if (stored.status !== next.status) {
    const firing = next.status === 'firing';
    return {
      repeat: false,
      resurfaceAs: freshKey(),
      notify: 'alert.created',
      countUsage: firing,
      lifecycle: { to: firing ? 'open' : 'resolved', actor, via: 'integration', countOccurrence: firing },
    };
  }
  return { repeat: false, resurfaceAs: null, notify: null, countUsage: false };
}

const FINAL = new Set<DraftStep['state']>(['done', 'failed', 'skipped']);

/**
 * One step per job name: a job seen before is replaced in place (its position
 * kept), a new one is appended. A finished job never goes back to running or
 * pending (GitHub does not order deliveries). At most the payload's step cap:
 * beyond it new jobs are dropped, as the formats drop fields beyond a cap.
 */
export function mergeStep(storedJson: string | null, step: DraftStep): DraftStep[] {
  let steps: DraftStep[] = [];
  try {
    const parsed: unknown = storedJson ? JSON.parse(storedJson) : [];
    if (Array.isArray(parsed)) steps = parsed.filter((s): s is DraftStep => typeof s === 'object' && s !== null && 'name' in s && typeof s.name === 'string');
  } catch {
    steps = [];
  }
  const i = steps.findIndex((s) => s.name === step.name);
  if (i === -1) return steps.length >= PAYLOAD_LIMITS.steps ? steps : [...steps, step];
  if (FINAL.has(steps[i]!.state) && !FINAL.has(step.state)) return steps;
  return steps.map((s, j) => (j === i ? step : s));
}
