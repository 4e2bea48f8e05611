import { defineCommand, UsageError, type Command } from '../command.js';
import { silenceJson } from '../../domain/silences.js';

/** Silences and maintenance windows (docs/silences.md): the same use case as the dashboard's page. */
export const silenceCommands: Command[] = [
  defineCommand({
    name: 'silence create',
    summary: "silence matching alerts for a while or every week (--weekly 'Sat 02:00-04:00' --tz Europe/Berlin); prints its id",
    flags: {
      channel: { type: 'string', value: 'C' },
      workspace: { type: 'string', value: 'W' },
      level: { type: 'string', value: 'L' },
      source: { type: 'string', value: 'S' },
      'title-contains': { type: 'string', value: 'T' },
      field: { type: 'string', value: 'label=value', multiple: true },
      for: { type: 'string', value: 'D' },
      until: { type: 'string', value: 'ISO' },
      weekly: { type: 'string', value: "'Sat 02:00-04:00'" },
      tz: { type: 'string', value: 'ZONE' },
      comment: { type: 'string', value: 'TEXT', required: true },
      as: { type: 'string', value: 'EMAIL', required: true },
    },
    run: async (ctx, f) => {
      if ((f.channel === undefined) === (f.workspace === undefined)) throw new UsageError('give exactly one of --channel C or --workspace W');
      if ([f.for, f.until, f.weekly].filter((v) => v !== undefined).length !== 1) throw new UsageError('give exactly one of --for D, --until ISO or --weekly W');
      if ((f.weekly === undefined) !== (f.tz === undefined)) throw new UsageError('--weekly and --tz go together');
      const accounts = await ctx.accounts();
      // A channel names its workspace; a slug is looked up among the author's workspaces.
      const channel = f.channel === undefined ? undefined : await accounts.requireChannelOfUser((await accounts.requireUser(f.as)).id, f.channel);
      const silences = await ctx.silences();
      const created = await silences.create({
        workspaceId: channel?.workspaceId ?? f.workspace!,
        channel: channel?.id,
        level: f.level,
        source: f.source,
        titleContains: f['title-contains'],
        fields: f.field,
        for: f.for,
        until: f.until,
        weekly: f.weekly,
        timeZone: f.tz,
        comment: f.comment,
        actor: f.as,
      });
      return silenceJson(created, ctx.clock.now());
    },
  }),
  defineCommand({
    name: 'silence list',
    summary: "list a workspace's silences, newest first, with their state (active, pending, expired)",
    flags: { workspace: { type: 'string', value: 'W', required: true } },
    run: async (ctx, f) => {
      const now = ctx.clock.now();
      return { workspaceId: f.workspace, silences: (await (await ctx.silences()).list(f.workspace)).map((s) => silenceJson(s, now)) };
    },
  }),
  defineCommand({
    name: 'silence expire',
    summary: 'end a silence now (alerts it would match notify again)',
    flags: { id: { type: 'string', value: 'S', required: true } },
    run: async (ctx, f) => silenceJson(await (await ctx.silences()).expire(f.id), ctx.clock.now()),
  }),
];
