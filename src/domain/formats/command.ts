/**
 * What a drop-in format mapper produces: one ingest command per request. The
 * mappers are pure (body and headers in, command out); the accept path owns
 * rate limits, idempotency, media fetching, storage, notifications and usage.
 */

export type DraftLevel = 'info' | 'success' | 'warning' | 'error';

/** A workflow step as the webhook payload takes it. */
export interface DraftStep {
  name: string;
  state: 'pending' | 'running' | 'done' | 'failed' | 'skipped';
  seconds?: number;
  info?: string;
}

export interface DraftActor {
  name?: string;
  id?: string;
  avatarUrl?: string;
  url?: string;
}

/**
 * A webhook payload body (the input side of src/domain/webhook/payload.ts's
 * WebhookPayload) that is already within every limit: `WebhookPayload.parse`
 * accepts every draft a mapper returns (test/formats proves it per fixture).
 * Attachments are not in it: remote media travel as `attachmentUrls`, because
 * for these senders a URL that cannot be fetched is skipped, not refused.
 */
export interface AlertDraft {
  title: string;
  level: DraftLevel;
  emoji?: string;
  message?: string;
  fields?: { label: string; value: string; inline: boolean }[];
  linkUrl?: string;
  linkText?: string;
  source?: string;
  actor?: DraftActor;
  metadata?: Record<string, string | number | boolean>;
  workflow?: { runId: string; state: 'running' | 'passed' | 'failed'; steps: DraftStep[]; error?: string };
}

/** A plain alert: created once per request (Slack, Discord, GitHub push/PR/issues/release). */
export interface AlertCommand {
  kind: 'alert';
  payload: AlertDraft;
  /** http(s) URLs to fetch as attachments, at most the attachment cap; one that fails is skipped and noted. */
  attachmentUrls: string[];
}

/**
 * An Alertmanager or Grafana notification: one alert per `groupKey`, updated
 * in place. `payload.level` is already the level to show (success when
 * resolved, from severity when firing). `stateFingerprint` is the same for two
 * notifications that describe the same state (status plus the set of alerts and
 * their statuses), so the store can tell Alertmanager's repeat_interval resends
 * from a change.
 */
export interface GroupCommand {
  kind: 'group';
  /** Namespaced by format (`alertmanager:…`, `grafana:…`), at most 200 characters. */
  groupKey: string;
  status: 'firing' | 'resolved';
  stateFingerprint: string;
  payload: AlertDraft;
  attachmentUrls: string[];
}

/**
 * A GitHub workflow_run event: one workflow-run alert per run and attempt.
 * `payload.workflow.steps` is always empty: steps come only from job commands,
 * so the store must keep the steps it has instead of replacing them.
 */
export interface RunCommand {
  kind: 'run';
  runId: string;
  payload: AlertDraft & { workflow: NonNullable<AlertDraft['workflow']> };
}

/** A GitHub workflow_job event: one step (keyed by job name) merged into the run's steps. */
export interface JobCommand {
  kind: 'job';
  runId: string;
  step: DraftStep;
  /**
   * The run to create when a job event arrives before its workflow_run event
   * (GitHub does not order deliveries). A job payload has no run number, so
   * the title lacks it until the workflow_run event updates the alert.
   */
  runPayload: RunCommand['payload'];
}

/** An event or action this service does not map: answered 200 `{"ignored": event}`, nothing stored. */
export interface IgnoredCommand {
  kind: 'ignored';
  event: string;
  action?: string;
}

/** GitHub's ping on webhook creation: answered 200, nothing stored. */
export interface PingCommand {
  kind: 'ping';
}

export type IngestCommand = AlertCommand | GroupCommand | RunCommand | JobCommand | IgnoredCommand | PingCommand;
