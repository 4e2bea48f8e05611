import { defineCommand, type Command } from '../command.js';

/** Moderating stored alerts. */
export const alertCommands: Command[] = [
  defineCommand({
    name: 'alert delete',
    summary: 'delete one alert with its files (open dashboards and streams drop it at once)',
    flags: { id: { type: 'string', value: 'A', required: true } },
    run: async (ctx, f) => (await ctx.alertDeletion()).deleteAlert(f.id),
  }),
];
