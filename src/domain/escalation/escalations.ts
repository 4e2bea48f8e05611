import type { Clock } from '../../lib/clock.js';
import { parseDuration } from '../../lib/duration.js';
import type { Accounts } from '../accounts.js';
import type { AlertLevel } from '../alert-rows.js';
import { AppError } from '../errors.js';
import { stepsOf, type EscalationPolicy } from './escalation-steps.js';

/** Bounds that keep a policy from paging anyone every second, or for ever. */
export const ESCALATION_LIMITS = { minMs: 30_000, maxMs: 30 * 86_400_000, times: 10, then: 20 } as const;
export const ESCALATION_LEVELS: readonly AlertLevel[] = ['INFO', 'SUCCESS', 'WARNING', 'ERROR'];

/** The escalation policies' rows (src/db/shared/escalation-rows.ts). */
export interface EscalationPolicyRows {
  policy(channelId: string): Promise<EscalationPolicy | undefined>;
  upsert(p: EscalationPolicy): Promise<void>;
  /** Removes the policy and every escalation in progress on the channel; whether there was one. */
  remove(channelId: string): Promise<boolean>;
}

/** What an owner or admin asks for (the CLI's flags, the dashboard's form), before it is checked. */
export interface EscalationRequest {
  /** A channel id or slug. */
  channel: string;
  minLevel: string;
  after: string;
  every: string;
  times: string;
  /** E-mail addresses or user ids of workspace members; empty or absent: the owners and admins. */
  then?: string[];
  /** Who set it (a user id), for the record. */
  actorId?: string | null;
}

const invalid = (field: string, detail: string) => new AppError('invalid-body', detail, { details: [{ code: 'invalid', message: detail, path: [field] }] });

/** `90000` → `90s`, `600000` → `10m`: the largest unit that divides it, as it is written. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}

function duration(field: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw invalid(field, `${field} must be an integer and a unit: 30s, 10m, 2h, 1d`);
  if (ms < ESCALATION_LIMITS.minMs || ms > ESCALATION_LIMITS.maxMs) throw invalid(field, `${field} must be from 30s to 30d`);
  return ms;
}

/**
 * Escalation per channel (issue 26): the policy's rules and its public JSON. Who may set it is the
 * transport's check (owners and admins in the dashboard; the admin CLI is the operator); the steps
 * themselves are the scheduler's (src/notify/escalation-scheduler.ts).
 */
export class Escalations {
  constructor(
    private readonly rows: EscalationPolicyRows,
    private readonly accounts: Pick<Accounts, 'requireChannel' | 'listMembers'>,
    private readonly clock: Clock,
  ) {}

  async get(channelIdOrSlug: string): Promise<EscalationPolicy | undefined> {
    return this.rows.policy((await this.accounts.requireChannel(channelIdOrSlug)).id);
  }

  async set(r: EscalationRequest): Promise<EscalationPolicy> {
    const channel = await this.accounts.requireChannel(r.channel);
    const minLevel = ESCALATION_LEVELS.find((l) => l === r.minLevel.trim().toUpperCase());
    if (!minLevel) throw invalid('minLevel', 'the level must be one of info, success, warning, error');
    const afterMs = duration('after', r.after);
    const everyMs = duration('every', r.every);
    const times = /^\d{1,3}$/.test(r.times.trim()) ? Number(r.times.trim()) : NaN;
    if (!(times >= 1 && times <= ESCALATION_LIMITS.times)) throw invalid('times', `times must be a whole number from 1 to ${ESCALATION_LIMITS.times}`);
    const then = await this.thenMembers(channel.workspaceId, r.then ?? []);
    const policy: EscalationPolicy = { channelId: channel.id, minLevel, afterMs, everyMs, times, then, updatedBy: r.actorId ?? null, updatedAt: this.clock.now() };
    await this.rows.upsert(policy);
    return policy;
  }

  /** Removes the channel's policy; alerts escalating there stop. Whether there was one. */
  async clear(channelIdOrSlug: string): Promise<boolean> {
    return this.rows.remove((await this.accounts.requireChannel(channelIdOrSlug)).id);
  }

  /** The policy as the CLI prints it and the dashboard shows it, `then` as e-mail addresses. */
  async json(p: EscalationPolicy) {
    const channel = await this.accounts.requireChannel(p.channelId);
    const members = new Map((await this.accounts.listMembers(channel.workspaceId)).map((m) => [m.id, m.email]));
    return {
      channelId: p.channelId,
      minLevel: p.minLevel,
      after: formatDuration(p.afterMs),
      every: formatDuration(p.everyMs),
      times: p.times,
      steps: stepsOf(p),
      then: p.then === null ? null : p.then.map((id) => members.get(id) ?? id),
      thenIsOwnersAndAdmins: p.then === null,
      updatedAt: new Date(p.updatedAt).toISOString(),
    };
  }

  /** `then` people as user ids: each a member of the channel's workspace; null (owners and admins) when none is named. */
  private async thenMembers(workspaceId: string, refs: string[]): Promise<string[] | null> {
    const wanted = [...new Set(refs.map((s) => s.trim()).filter((s) => s !== ''))];
    if (wanted.length === 0) return null;
    if (wanted.length > ESCALATION_LIMITS.then) throw invalid('then', `then names at most ${ESCALATION_LIMITS.then} people`);
    const members = await this.accounts.listMembers(workspaceId);
    return wanted.map((ref) => {
      const m = members.find((u) => u.id === ref || u.email.toLowerCase() === ref.toLowerCase());
      if (!m) throw invalid('then', `${ref.slice(0, 100)} is not a member of this workspace`);
      return m.id;
    });
  }
}
