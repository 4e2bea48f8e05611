import { defineCommand, type Command } from '../command.js';

/** Connecting channels to Discord. The running bot picks changes up within a few seconds. */
export const discordCommands: Command[] = [
  defineCommand({
    name: 'channel connect-discord',
    summary: 'mirror a Discord text channel into a channel (names show once the bot has seen it)',
    flags: { channel: { type: 'string', value: 'C', required: true }, 'discord-channel': { type: 'string', value: '<snowflake>', required: true } },
    run: async (ctx, f) => {
      // Connecting the same pair again changes nothing and prints the same link: `created` is not part of it.
      const { created: _created, ...link } = await (await ctx.discordLinks()).connect(f.channel, f['discord-channel']);
      return link;
    },
  }),
  defineCommand({
    name: 'channel disconnect-discord',
    summary: 'stop mirroring Discord into a channel (stored messages stay)',
    flags: { channel: { type: 'string', value: 'C', required: true } },
    run: async (ctx, f) => (await ctx.discordLinks()).disconnect(f.channel),
  }),
  defineCommand({
    name: 'channel discord-status',
    summary: 'show the Discord connection of a channel: names, sync point, stored messages',
    flags: { channel: { type: 'string', value: 'C', required: true } },
    run: async (ctx, f) => (await ctx.discordLinks()).status(f.channel),
  }),
];
