import { defineCommand, UsageError, type Command } from '../command.js';

/** Escalation per channel (docs/handling-alerts.md "Escalation"): the same use case as the channel settings page. */
export const escalationCommands: Command[] = [
  defineCommand({
    name: 'channel set-escalation',
    summary: 're-notify open alerts at or above a level after D, every D up to N times, then the --then people (default: owners and admins); --clear removes it',
    flags: {
      channel: { type: 'string', value: 'C', required: true },
      'min-level': { type: 'string', value: 'L' },
      after: { type: 'string', value: 'D' },
      every: { type: 'string', value: 'D' },
      times: { type: 'string', value: 'N' },
      then: { type: 'string', value: 'EMAIL,…' },
      clear: { type: 'boolean' },
    },
    run: async (ctx, f) => {
      const escalations = await ctx.escalations();
      const given = [f['min-level'], f.after, f.every, f.times, f.then].some((v) => v !== undefined);
      if (f.clear) {
        if (given) throw new UsageError('--clear takes no other setting');
        const channel = await (await ctx.accounts()).requireChannel(f.channel);
        return { channelId: channel.id, cleared: await escalations.clear(channel.id) };
      }
      if (f['min-level'] === undefined || f.after === undefined || f.every === undefined || f.times === undefined) {
        throw new UsageError('give --min-level, --after, --every and --times (or --clear)');
      }
      const policy = await escalations.set({
        channel: f.channel,
        minLevel: f['min-level'],
        after: f.after,
        every: f.every,
        times: f.times,
        then: f.then?.split(','),
      });
      return escalations.json(policy);
    },
  }),
];
