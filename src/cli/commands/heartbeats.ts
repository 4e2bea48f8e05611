import { defineCommand, UsageError, type Command } from '../command.js';
import { heartbeatJson } from '../../domain/heartbeats/heartbeats.js';
import type { HeartbeatCheck } from '../../domain/heartbeats/ports.js';
import type { AdminServices } from '../../services/admin.js';

const schedule = {
  period: { type: 'string', value: 'D' },
  grace: { type: 'string', value: 'D' },
  cron: { type: 'string', value: 'EXPR' },
  tz: { type: 'string', value: 'ZONE' },
} as const;

/** A check as printed: the API's shape plus the slug form's URL with the workspace's ping key. */
async function printed(ctx: AdminServices, c: HeartbeatCheck) {
  const pingKey = await (await ctx.heartbeats()).pingKey(c.workspaceId);
  const base = ctx.config.publicUrl;
  return { ...heartbeatJson(c, ctx.clock.now(), base), pingKey, slugPingUrl: `${base}/ping/${pingKey}/${c.slug}` };
}

/** Heartbeat checks (docs/heartbeats.md): the same use case as the dashboard's pages. */
export const heartbeatCommands: Command[] = [
  defineCommand({
    name: 'heartbeat create',
    summary: 'a check that alerts in the channel when pings stop: --period 1h --grace 10m, or --cron "0 3 * * *" --tz Europe/Berlin --grace 30m',
    flags: { channel: { type: 'string', value: 'C', required: true }, name: { type: 'string', value: 'N', required: true }, slug: { type: 'string', value: 'S' }, ...schedule },
    run: async (ctx, f) => {
      if ((f.period === undefined) === (f.cron === undefined)) throw new UsageError('give --period D or --cron EXPR --tz ZONE (with --grace D)');
      if (f.grace === undefined) throw new UsageError('--grace D is required');
      const channel = await (await ctx.accounts()).requireChannel(f.channel);
      const check = await (await ctx.heartbeats()).create({ channelId: channel.id, name: f.name, slug: f.slug, period: f.period, cron: f.cron, tz: f.tz, grace: f.grace });
      return await printed(ctx, check);
    },
  }),
  defineCommand({
    name: 'heartbeat list',
    summary: "a workspace's checks (or one channel's) with their state and ping URLs",
    flags: { workspace: { type: 'string', value: 'W' }, channel: { type: 'string', value: 'C' } },
    run: async (ctx, f) => {
      if ((f.workspace === undefined) === (f.channel === undefined)) throw new UsageError('give exactly one of --workspace W or --channel C');
      const heartbeats = await ctx.heartbeats();
      const channel = f.channel === undefined ? undefined : await (await ctx.accounts()).requireChannel(f.channel);
      const workspaceId = channel?.workspaceId ?? (await (await ctx.accounts()).requireWorkspace(f.workspace!)).id;
      const checks = channel ? await heartbeats.ofChannel(channel.id) : await heartbeats.ofWorkspace(workspaceId);
      const out = [];
      for (const c of checks) out.push(await printed(ctx, c));
      return { workspaceId, pingKey: await heartbeats.pingKey(workspaceId), heartbeats: out };
    },
  }),
  defineCommand({
    name: 'heartbeat update',
    summary: "change a check's name, slug, schedule or grace (the due time follows)",
    flags: { id: { type: 'string', value: 'H', required: true }, name: { type: 'string', value: 'N' }, slug: { type: 'string', value: 'S' }, ...schedule },
    run: async (ctx, f) => printed(ctx, await (await ctx.heartbeats()).update(f.id, { name: f.name, slug: f.slug, period: f.period, cron: f.cron, tz: f.tz, grace: f.grace })),
  }),
  defineCommand({
    name: 'heartbeat pause',
    summary: 'stop expecting pings (a ping resumes it, as in Healthchecks)',
    flags: { id: { type: 'string', value: 'H', required: true } },
    run: async (ctx, f) => printed(ctx, await (await ctx.heartbeats()).pause(f.id)),
  }),
  defineCommand({
    name: 'heartbeat resume',
    summary: 'expect pings again: the check is new until its next ping',
    flags: { id: { type: 'string', value: 'H', required: true } },
    run: async (ctx, f) => printed(ctx, await (await ctx.heartbeats()).resume(f.id)),
  }),
  defineCommand({
    name: 'heartbeat delete',
    summary: 'delete a check and its pings (its alerts stay in the channel)',
    flags: { id: { type: 'string', value: 'H', required: true } },
    run: async (ctx, f) => {
      await (await ctx.heartbeats()).remove(f.id);
      return { id: f.id, deleted: true };
    },
  }),
  defineCommand({
    name: 'heartbeat rotate-ping-key',
    summary: "replace a workspace's ping key: slug URLs with the old key answer 404 from now on",
    flags: { workspace: { type: 'string', value: 'W', required: true } },
    run: async (ctx, f) => {
      const workspaceId = (await (await ctx.accounts()).requireWorkspace(f.workspace)).id;
      return { workspaceId, pingKey: await (await ctx.heartbeats()).rotatePingKey(workspaceId) };
    },
  }),
];
