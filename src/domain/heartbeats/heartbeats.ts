import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { AppError, notFound } from '../errors.js';
import type { HeartbeatCheck, HeartbeatRows } from './ports.js';
import { checkStatus, cronSchedule, downAt, durationMs, nextDueAt, type Schedule } from './schedule.js';

/** A schedule as the CLI and forms give it: a period, or a cron line with its zone; and a grace. */
export interface ScheduleInput {
  period?: string;
  cron?: string;
  tz?: string;
  grace?: string;
}

export interface CreateCheck extends ScheduleInput {
  channelId: string;
  name: string;
  slug?: string;
}

const SLUG = /^[a-z0-9][a-z0-9_-]{0,99}$/;
const NAME_MAX = 100;

/** Healthchecks' slug from a name: lower case, runs of other characters as one dash. */
export function slugOf(name: string): string {
  return name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9_]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || 'check';
}

/** A new ping key: 22 URL-safe characters (16 random bytes), which a 36-character UUID can never be mistaken for. */
export const newPingKey = () => randomBytes(16).toString('base64url');

/** The check as the CLI and `GET /api/heartbeats` show it. `pingUrl` carries the check's credential. */
export function heartbeatJson(c: HeartbeatCheck, now: number, publicUrl: string) {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    channelId: c.channelId,
    status: checkStatus(c, now),
    schedule: c.schedule.kind === 'period' ? { period: c.schedule.periodMs / 1000 } : { cron: c.schedule.cron, tz: c.schedule.timeZone },
    graceSeconds: c.graceMs / 1000,
    pingUrl: `${publicUrl}/ping/${c.pingUuid}`,
    lastPingAt: iso(c.lastPingAt),
    nextDueAt: iso(nextDueAt(c)),
    lastDurationMs: c.lastDurationMs,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Managing checks: the admin CLI's `heartbeat …` commands and the dashboard call these. */
export class Heartbeats {
  constructor(
    private readonly rows: HeartbeatRows,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async create(input: CreateCheck): Promise<HeartbeatCheck> {
    const channel = await this.rows.channel(input.channelId);
    if (!channel) throw notFound(`channel ${input.channelId}`);
    // A chat-connected channel mirrors a Discord channel: nothing else writes alerts into it.
    if (channel.chatConnected) throw new AppError('channel-is-chat-connected', 'this channel mirrors a Discord channel: heartbeat checks go in a channel of their own');
    const name = checkName(input.name);
    const slug = input.slug ?? slugOf(name);
    await this.requireFreeSlug(channel.workspaceId, slug);
    const { schedule, graceMs } = scheduleOf(input);
    const check: HeartbeatCheck = {
      id: this.ids.next('hbc'),
      workspaceId: channel.workspaceId,
      channelId: channel.id,
      pingUuid: randomUUID(),
      name,
      slug,
      schedule,
      graceMs,
      status: 'new',
      lastPingAt: null,
      lastStartAt: null,
      lastStartRid: null,
      lastDurationMs: null,
      downAt: null,
      downSince: null,
      alertedSince: null,
      pingCount: 0,
      createdAt: this.clock.now(),
    };
    await this.pingKey(channel.workspaceId);
    await this.rows.insert(check);
    return check;
  }

  /** Renames, re-slugs or reschedules a check; the due time follows the new schedule. A cron line keeps its zone unless --tz is given. */
  async update(id: string, change: ScheduleInput & { name?: string; slug?: string }): Promise<HeartbeatCheck> {
    const c = await this.require(id);
    const name = change.name === undefined ? c.name : checkName(change.name);
    if (change.slug !== undefined && change.slug !== c.slug) await this.requireFreeSlug(c.workspaceId, change.slug, c.id);
    const graceMs = change.grace === undefined ? c.graceMs : durationMs(change.grace, 'grace');
    let schedule = c.schedule;
    if (change.period !== undefined || change.cron !== undefined || change.tz !== undefined) {
      const kept = c.schedule.kind === 'cron' ? c.schedule : undefined;
      const cron = change.cron ?? (change.period === undefined ? kept?.cron : undefined);
      schedule = scheduleFrom({ period: change.period, cron, tz: change.tz ?? kept?.timeZone });
    }
    const updated = await this.rows.edit(id, (current) => {
      const next = { ...current, name, slug: change.slug ?? current.slug, schedule, graceMs };
      return { ...next, downAt: downAt(next) };
    });
    if (!updated) throw notFound(`heartbeat ${id}`);
    return updated;
  }

  async pause(id: string): Promise<HeartbeatCheck> {
    return (await this.rows.setPaused(id, true)) ?? Promise.reject(notFound(`heartbeat ${id}`));
  }

  async resume(id: string): Promise<HeartbeatCheck> {
    return (await this.rows.setPaused(id, false)) ?? Promise.reject(notFound(`heartbeat ${id}`));
  }

  async remove(id: string): Promise<void> {
    if (!(await this.rows.remove(id))) throw notFound(`heartbeat ${id}`);
  }

  async require(id: string): Promise<HeartbeatCheck> {
    const c = await this.rows.byId(id);
    if (!c) throw notFound(`heartbeat ${id}`);
    return c;
  }

  async ofWorkspace(workspaceId: string) {
    return await this.rows.ofWorkspace(workspaceId);
  }

  async ofChannel(channelId: string) {
    return await this.rows.ofChannel(channelId);
  }

  async pings(id: string, limit = 50) {
    return await this.rows.pings(id, limit);
  }

  /** The workspace's ping key, made on first use. */
  async pingKey(workspaceId: string): Promise<string> {
    const existing = await this.rows.pingKeyOf(workspaceId);
    if (existing) return existing;
    const key = newPingKey();
    await this.rows.setPingKey(workspaceId, key, this.clock.now());
    return key;
  }

  /** A new ping key: every slug URL with the old one answers 404 from now on. */
  async rotatePingKey(workspaceId: string): Promise<string> {
    const key = newPingKey();
    await this.rows.setPingKey(workspaceId, key, this.clock.now());
    return key;
  }

  private async requireFreeSlug(workspaceId: string, slug: string, exceptId?: string) {
    if (!SLUG.test(slug)) throw new AppError('invalid-body', 'slug must be lower-case letters, digits, dashes and underscores (at most 100)');
    if (await this.rows.slugTaken(workspaceId, slug, exceptId)) throw new AppError('slug-taken', `a heartbeat with the slug ${slug} exists in this workspace`);
  }
}

function checkName(name: string): string {
  const n = name.trim();
  if (n.length === 0 || n.length > NAME_MAX) throw new AppError('invalid-body', `name must be 1 to ${NAME_MAX} characters`);
  return n;
}

function scheduleOf(input: ScheduleInput): { schedule: Schedule; graceMs: number } {
  if (input.grace === undefined) throw new AppError('invalid-body', 'grace is required (such as --grace 10m)');
  return { schedule: scheduleFrom(input), graceMs: durationMs(input.grace, 'grace') };
}

function scheduleFrom(input: Omit<ScheduleInput, 'grace'>): Schedule {
  if ((input.period === undefined) === (input.cron === undefined)) throw new AppError('invalid-body', 'give a period (--period 1h) or a cron line (--cron "0 3 * * *" --tz ZONE), not both');
  if (input.period !== undefined) return { kind: 'period', periodMs: durationMs(input.period, 'period') };
  if (input.tz === undefined) throw new AppError('invalid-body', 'a cron line needs its time zone (--tz Europe/Berlin, or UTC)');
  return cronSchedule(input.cron!, input.tz);
}
