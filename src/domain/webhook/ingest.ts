import type Database from 'better-sqlite3';
import type { WriteBatcher } from '../../db/write-batcher.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import type { ChangeBus, ChangeRecorder } from '../changes.js';
import { AppError } from '../errors.js';
import type { Idempotency } from '../idempotency.js';
import type { Usage } from '../usage.js';
import type { WebhookAlert } from './payload.js';

export interface WebhookChannel {
  id: string;
  name: string;
  slug: string;
  workspaceId: string;
  workspaceName: string;
  chatConnected: boolean;
}

/** A file already in the media store, ready to be attached. */
export interface AttachmentRecord {
  mediaKey: string;
  mime: string;
  kind: 'image' | 'video' | 'audio';
  name: string | null;
  size: number;
}

export interface IngestAnswer {
  status: 201;
  body: {
    success: true;
    alertId: string;
    destination: { workspace: { id: string; name: string }; channel: { id: string; name: string; slug: string } };
    workflow?: { runId: string; state: string; created: boolean };
  };
}

/** The level a run state shows: a failed run can never look like a success. */
export const LEVEL_OF_RUN_STATE = { running: 'INFO', passed: 'SUCCESS', failed: 'ERROR' } as const;

type AlertColumns = ReturnType<WebhookIngest['columns']>;

/** What one ingest unit did, for the steps after COMMIT. */
type StoredUnit = IngestAnswer & { notified: boolean; released?: string[] };

interface ExistingRun {
  id: string;
  workflowState: 'running' | 'passed' | 'failed';
}

const CHANNEL_CACHE_MAX = 10_000;

/**
 * Stores webhook alerts and workflow runs. Each call is one unit in the group
 * commit: the alert, its attachments, the billing count, the outbox row, the
 * stream event and the idempotency answer commit together or not at all.
 */
export class WebhookIngest {
  private readonly s;
  private readonly channelCache = new Map<string, WebhookChannel>();
  private cacheVersion = -1;
  /** data_version is read at most once a millisecond, not per request (it was ~5 % of a webhook's CPU under load). */
  private versionCheckedAt = -Infinity;

  constructor(
    sqlite: Database.Database,
    private readonly batcher: WriteBatcher,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    private readonly usage: Usage,
    private readonly idempotency: Idempotency,
    private readonly bus: ChangeBus,
    /** Removes files no alert references any more; called after COMMIT. */
    private readonly releaseMedia: (keys: string[]) => void = () => {},
  ) {
    this.s = {
      channelByToken: sqlite.prepare(
        `SELECT c.id, c.name, c.slug, c.workspace_id AS workspaceId, w.name AS workspaceName,
                EXISTS (SELECT 1 FROM discord_links dl WHERE dl.channel_id = c.id) AS chatConnected
         FROM channels c JOIN workspaces w ON w.id = c.workspace_id WHERE c.webhook_token = ?`,
      ),
      // Positional parameters: binding an object by name costs ~2x on this, the hottest statement.
      insertAlert: sqlite.prepare(
        `INSERT INTO alerts (id, channel_id, kind, title, level, emoji, message, fields_json, link_url, link_text, source,
           metadata_json, actor_json, workflow_run_id, workflow_state, workflow_steps_json, workflow_error, activity_key, created_at, updated_at)
         VALUES (?, ?, 'standard', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      dataVersion: sqlite.prepare('PRAGMA data_version').pluck(),
      findRun: sqlite.prepare(
        'SELECT id, workflow_state AS workflowState FROM alerts WHERE channel_id = ? AND workflow_run_id = ?',
      ),
      updateRun: sqlite.prepare(
        `UPDATE alerts SET title = @title, level = @level, emoji = @emoji, message = @message, fields_json = @fieldsJson,
           link_url = @linkUrl, link_text = @linkText, source = @source, metadata_json = @metadataJson, actor_json = @actorJson,
           workflow_state = @runState, workflow_steps_json = @stepsJson, workflow_error = @runError,
           activity_key = CASE WHEN @resurface THEN @activityKey ELSE activity_key END, updated_at = @now
         WHERE id = @id`,
      ),
      deleteAttachments: sqlite.prepare('DELETE FROM alert_attachments WHERE alert_id = ?'),
      attachmentKeys: sqlite.prepare('SELECT media_key FROM alert_attachments WHERE alert_id = ?').pluck(),
      insertAttachment: sqlite.prepare(
        'INSERT INTO alert_attachments (alert_id, position, media_key, mime, kind, name, size) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      setActorAvatar: sqlite.prepare(
        `UPDATE alerts SET actor_json = json_set(actor_json, '$.avatarUrl', ?) WHERE id = ? AND json_extract(actor_json, '$.avatarUrl') IS NULL
         RETURNING channel_id AS channelId`,
      ),
    };
  }

  /**
   * The channel behind a webhook token. Found channels are cached: the lookup
   * was a sixth of a webhook's CPU under load. The cache is dropped when this
   * process changes channels (invalidateChannels) and when SQLite's
   * data_version says another connection (the admin CLI) committed anything.
   * That is checked at most once a millisecond: a token the CLI rotated stops
   * working within a millisecond of the CLI's commit.
   */
  findChannel(webhookToken: string): WebhookChannel | undefined {
    const t = performance.now();
    if (t - this.versionCheckedAt >= 1) {
      this.versionCheckedAt = t;
      const version = this.s.dataVersion.get() as number;
      if (version !== this.cacheVersion) {
        this.channelCache.clear();
        this.cacheVersion = version;
      }
    }
    const cached = this.channelCache.get(webhookToken);
    if (cached) return cached;
    const row = this.s.channelByToken.get(webhookToken) as (Omit<WebhookChannel, 'chatConnected'> & { chatConnected: number }) | undefined;
    if (!row) return undefined;
    const channel = { ...row, chatConnected: Boolean(row.chatConnected) };
    if (this.channelCache.size >= CHANNEL_CACHE_MAX) this.channelCache.clear();
    this.channelCache.set(webhookToken, channel);
    return channel;
  }

  invalidateChannels(): void {
    this.channelCache.clear();
  }

  /** Resolves after COMMIT. */
  async ingest(
    channel: WebhookChannel,
    alert: WebhookAlert,
    attachments: AttachmentRecord[],
    idem?: { key: string; hash: string },
  ): Promise<IngestAnswer> {
    const result = await this.batcher.run(() => {
      const answer = alert.workflow ? this.storeRun(channel, alert, attachments) : this.storeAlert(channel, alert, attachments);
      if (idem) this.idempotency.save(channel.id, idem.key, idem.hash, answer);
      return answer;
    });
    this.bus.emit('alert-events');
    if (result.notified) this.bus.emit('notifications');
    if (result.released?.length) this.releaseMedia(result.released);
    return { status: result.status, body: result.body };
  }

  /**
   * Stores the picture the avatar lookup found, after the alert's answer went
   * out (never overriding an avatarUrl the sender gave), and tells the live
   * stream. Resolves after COMMIT with whether anything changed.
   */
  async storeActorAvatar(alertId: string, url: string): Promise<boolean> {
    const changed = await this.batcher.run(() => {
      const row = this.s.setActorAvatar.get(url, alertId) as { channelId: string } | undefined;
      if (!row) return false;
      this.changes.event(row.channelId, alertId, 'alert.updated', this.clock.now());
      return true;
    });
    if (changed) this.bus.emit('alert-events');
    return changed;
  }

  private storeAlert(channel: WebhookChannel, alert: WebhookAlert, attachments: AttachmentRecord[]): StoredUnit {
    const now = this.clock.now();
    const id = this.ids.next('alt');
    this.insert(id, channel.id, this.columns(alert), now);
    this.attach(id, attachments);
    this.usage.count(channel.workspaceId, now);
    this.changes.notification(channel.id, id, 'alert.created', now);
    this.changes.event(channel.id, id, 'alert.created', now);
    return { ...this.answer(id, channel), notified: true };
  }

  /**
   * One alert per (channel, runId), following the spec's state table. A POST
   * after a terminal state: the same state again is a retry (silent, no second
   * notification); any other state is refused (409, use a new runId for a re-run).
   */
  private storeRun(channel: WebhookChannel, alert: WebhookAlert, attachments: AttachmentRecord[]): StoredUnit {
    const wf = alert.workflow!;
    const now = this.clock.now();
    const existing = this.s.findRun.get(channel.id, wf.runId) as ExistingRun | undefined;
    const columns = this.columns(alert);
    if (!existing) {
      const id = this.ids.next('alt');
      this.insert(id, channel.id, columns, now);
      this.attach(id, attachments);
      this.usage.count(channel.workspaceId, now); // the run's one billable event
      this.changes.notification(channel.id, id, wf.state === 'running' ? 'workflow.started' : 'workflow.finished', now);
      this.changes.event(channel.id, id, 'alert.created', now);
      return { ...this.answer(id, channel, { runId: wf.runId, state: wf.state, created: true }), notified: true };
    }
    const terminal = existing.workflowState !== 'running';
    if (terminal && wf.state !== existing.workflowState) {
      throw new AppError(
        'workflow-run-finished',
        `run ${wf.runId} already ${existing.workflowState}; it cannot become ${wf.state}. Report a re-run under a new runId.`,
      );
    }
    const finishing = !terminal && wf.state !== 'running';
    this.s.updateRun.run({ ...columns, now, id: existing.id, resurface: finishing ? 1 : 0, activityKey: finishing ? this.ids.next('alt') : null });
    let released: string[] | undefined;
    if (attachments.length > 0) {
      released = this.s.attachmentKeys.all(existing.id) as string[];
      this.s.deleteAttachments.run(existing.id);
      this.attach(existing.id, attachments);
    }
    if (finishing) this.changes.notification(channel.id, existing.id, 'workflow.finished', now);
    this.changes.event(channel.id, existing.id, 'alert.updated', now);
    return { ...this.answer(existing.id, channel, { runId: wf.runId, state: wf.state, created: false }), notified: finishing, released };
  }

  private insert(id: string, channelId: string, c: AlertColumns, now: number) {
    this.s.insertAlert.run(
      id, channelId, c.title, c.level, c.emoji, c.message, c.fieldsJson, c.linkUrl, c.linkText, c.source, c.metadataJson, c.actorJson,
      c.runId, c.runState, c.stepsJson, c.runError, id, now, now,
    );
  }

  /** The stored columns of an alert, computed once per POST; a run's level follows its state. */
  private columns(alert: WebhookAlert) {
    const wf = alert.workflow;
    return {
      title: alert.title,
      level: wf ? LEVEL_OF_RUN_STATE[wf.state] : alert.level,
      emoji: alert.emoji,
      message: alert.message,
      fieldsJson: alert.fields.length ? JSON.stringify(alert.fields) : null,
      linkUrl: alert.linkUrl,
      linkText: alert.linkText,
      source: alert.source,
      metadataJson: alert.metadata ? JSON.stringify(alert.metadata) : null,
      actorJson: alert.actor ? JSON.stringify(alert.actor) : null,
      runId: wf?.runId ?? null,
      runState: wf?.state ?? null,
      stepsJson: wf ? JSON.stringify(wf.steps) : null,
      runError: wf?.error ?? null,
    };
  }

  private attach(alertId: string, attachments: AttachmentRecord[]) {
    attachments.forEach((a, i) => this.s.insertAttachment.run(alertId, i, a.mediaKey, a.mime, a.kind, a.name, a.size));
  }

  /** Every accepted POST is a 201, as the spec says; `workflow.created` tells a new run from an update. */
  private answer(alertId: string, channel: WebhookChannel, workflow?: IngestAnswer['body']['workflow']): IngestAnswer {
    return {
      status: 201,
      body: {
        success: true,
        alertId,
        destination: {
          workspace: { id: channel.workspaceId, name: channel.workspaceName },
          channel: { id: channel.id, name: channel.name, slug: channel.slug },
        },
        ...(workflow ? { workflow } : {}),
      },
    };
  }
}
