import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { AlertRetention, PruneRule } from './alert-store.js';
import type { ChangeBus } from './changes.js';
import { AppError } from './errors.js';
import type { Clock } from '../lib/clock.js';

/** Upper bounds: anything above is a typo, not a policy (100 years; a hundred million alerts). */
export const MAX_RETENTION_DAYS = 36_500;
export const MAX_RETENTION_ALERTS = 100_000_000;
/** Alerts deleted per unit: small enough that one batch holds the event loop well under 20 ms (docs/operations.md "Retention"). */
export const PRUNE_BATCH_SIZE = 500;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A limit as an operator gives it: a positive whole number, or `none` (no limit). */
export type LimitInput = number | 'none';

export interface RetentionInput {
  days?: LimitInput;
  maxAlerts?: LimitInput;
  /** Back to the default: a channel inherits the workspace's values again; a workspace has no limits. */
  clear?: boolean;
}

/**
 * Stored values. On a channel NULL inherits the workspace's value and 0 means
 * "no limit here" (overriding the workspace); on a workspace NULL means no limit.
 */
export interface StoredLimits {
  days: number | null;
  maxAlerts: number | null;
}

export interface ChannelPolicyRow {
  channelId: string;
  channelDays: number | null;
  channelMaxAlerts: number | null;
  workspaceDays: number | null;
  workspaceMaxAlerts: number | null;
}

/** Storage of the settings (src/db/retention-settings.ts on SQLite, src/db/pg/retention-settings.ts on PostgreSQL). */
export interface RetentionSettingsRows {
  channel(id: string): Promise<StoredLimits | undefined>;
  workspace(id: string): Promise<StoredLimits | undefined>;
  setChannel(id: string, limits: StoredLimits): Promise<void>;
  setWorkspace(id: string, limits: StoredLimits): Promise<void>;
  /** Every channel that has a limit of its own or from its workspace. */
  policies(): Promise<ChannelPolicyRow[]>;
}

/** What applies to a channel: null is no limit. */
export interface EffectiveLimits {
  days: number | null;
  maxAlerts: number | null;
}

/** A channel's own value: a number, `none` (no limit whatever the workspace says) or `workspace` (inherited). */
type ChannelSetting = number | 'none' | 'workspace';

/** Each field falls back to the workspace on its own: a channel may cap its count and keep the workspace's age limit. */
export function effectiveLimits(r: Omit<ChannelPolicyRow, 'channelId'>): EffectiveLimits {
  const pick = (own: number | null, ws: number | null) => (own === null ? ws : own === 0 ? null : own);
  return { days: pick(r.channelDays, r.workspaceDays), maxAlerts: pick(r.channelMaxAlerts, r.workspaceMaxAlerts) };
}

function checkLimit(name: string, v: LimitInput | undefined, max: number): void {
  if (v === undefined || v === 'none') return;
  if (!Number.isSafeInteger(v) || v < 1 || v > max) throw new AppError('invalid-body', `${name} must be a whole number from 1 to ${max}, or none`);
}

function checkInput(input: RetentionInput): void {
  const given = input.days !== undefined || input.maxAlerts !== undefined;
  if (input.clear && given) throw new AppError('invalid-body', '--clear removes both limits and takes no --days or --max-alerts');
  if (!input.clear && !given) throw new AppError('invalid-body', 'nothing to set: give --days, --max-alerts or --clear');
  checkLimit('days', input.days, MAX_RETENTION_DAYS);
  checkLimit('max-alerts', input.maxAlerts, MAX_RETENTION_ALERTS);
}

/**
 * Setting retention (the admin CLI's use cases). A value not given keeps what
 * is stored, so `--max-alerts` alone leaves an age limit in place.
 */
export class RetentionSettings {
  constructor(
    private readonly rows: RetentionSettingsRows,
    private readonly lookup: {
      requireChannel(ref: string): Promise<{ id: string; slug: string; workspaceId: string }>;
      requireWorkspace(id: string): Promise<{ id: string }>;
    },
  ) {}

  async setChannel(ref: string, input: RetentionInput) {
    checkInput(input);
    const ch = await this.lookup.requireChannel(ref);
    const stored = (await this.rows.channel(ch.id))!;
    const own = (v: LimitInput | undefined, old: number | null) => (input.clear ? null : v === undefined ? old : v === 'none' ? 0 : v);
    const next = { days: own(input.days, stored.days), maxAlerts: own(input.maxAlerts, stored.maxAlerts) };
    await this.rows.setChannel(ch.id, next);
    const ws = (await this.rows.workspace(ch.workspaceId))!;
    const setting = (v: number | null): ChannelSetting => (v === null ? 'workspace' : v === 0 ? 'none' : v);
    return {
      channelId: ch.id,
      slug: ch.slug,
      workspaceId: ch.workspaceId,
      setting: { days: setting(next.days), maxAlerts: setting(next.maxAlerts) },
      effective: effectiveLimits({ channelDays: next.days, channelMaxAlerts: next.maxAlerts, workspaceDays: ws.days, workspaceMaxAlerts: ws.maxAlerts }),
    };
  }

  async setWorkspace(id: string, input: RetentionInput) {
    checkInput(input);
    await this.lookup.requireWorkspace(id);
    const stored = (await this.rows.workspace(id))!;
    const value = (v: LimitInput | undefined, old: number | null) => (input.clear || v === 'none' ? null : v === undefined ? old : v);
    const next = { days: value(input.days, stored.days), maxAlerts: value(input.maxAlerts, stored.maxAlerts) };
    await this.rows.setWorkspace(id, next);
    return { workspaceId: id, default: next };
  }
}

export interface RetentionPassResult {
  channels: number;
  deleted: number;
  batches: number;
  /** The slowest batch's time inside its unit, ms. */
  maxBatchMs: number;
}

export interface RetentionPrunerDeps {
  store: AlertRetention;
  settings: Pick<RetentionSettingsRows, 'policies'>;
  clock: Clock;
  bus: ChangeBus;
  /** After the commit: files no alert references any more start their grace period. */
  releaseMedia(keys: string[]): void;
}

/**
 * Deletes what the retention settings no longer keep, in batches of
 * PRUNE_BATCH_SIZE alerts, each its own group-commit unit, yielding to the
 * event loop between them so webhooks keep being answered during a long pass.
 */
export class RetentionPruner {
  constructor(
    private readonly deps: RetentionPrunerDeps,
    private readonly batchSize = PRUNE_BATCH_SIZE,
  ) {}

  /** One pass over every channel with a limit; `stopping` is checked between batches. */
  async pass(stopping: () => boolean = () => false): Promise<RetentionPassResult> {
    const result: RetentionPassResult = { channels: 0, deleted: 0, batches: 0, maxBatchMs: 0 };
    for (const row of await this.deps.settings.policies()) {
      const limits = effectiveLimits(row);
      if (limits.days === null && limits.maxAlerts === null) continue;
      result.channels++;
      for (;;) {
        if (stopping()) return result;
        // Re-read each batch: the cut-off moves with the clock during a long pass.
        const now = this.deps.clock.now();
        const rule: PruneRule = { olderThan: limits.days === null ? null : now - limits.days * DAY_MS, keepNewest: limits.maxAlerts };
        const batch = await this.deps.store.pruneBatch(row.channelId, rule, this.batchSize, now);
        result.batches++;
        result.maxBatchMs = Math.max(result.maxBatchMs, batch.unitMs);
        if (batch.deleted > 0) {
          result.deleted += batch.deleted;
          this.deps.bus.emit('alert-events');
          if (batch.released.length) this.deps.releaseMedia(batch.released);
        }
        if (batch.deleted < this.batchSize) break;
        await yieldToEventLoop();
      }
    }
    return result;
  }
}
