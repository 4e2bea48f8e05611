import { choiceFlag, defineCommand, wholeNumberFlag, type Command } from '../command.js';
import { CHAT_CHANNEL_DEFAULT_LEVEL, DEFAULT_LEVEL, NOTIFY_LEVELS } from '../../domain/notification-preferences.js';
import { quietHoursCommand } from './quiet-hours.js';
import { quietHoursJson } from '../../domain/quiet-hours.js';

/** E-mail preferences and a look at the outbox. */
export const notifyCommands: Command[] = [
  defineCommand({
    name: 'notify set',
    summary: 'set which alerts of a channel a user gets by e-mail (important = warnings and errors)',
    flags: {
      user: { type: 'string', value: 'U', required: true },
      channel: { type: 'string', value: 'C', required: true },
      level: { type: 'string', value: NOTIFY_LEVELS.join('|'), required: true },
    },
    run: async (ctx, f) => {
      const level = choiceFlag('level', f.level, NOTIFY_LEVELS);
      const accounts = (await ctx.accounts());
      const user = await accounts.requireUser(f.user);
      const channel = await accounts.requireChannelOfUser(user.id, f.channel);
      return { ...(await (await ctx.notifyPreferences()).set(user.id, channel.id, level)), channelSlug: channel.slug, email: user.email };
    },
  }),
  defineCommand({
    name: 'notify get',
    summary: "a user's e-mail level for every channel they can see (isDefault: nothing set)",
    flags: { user: { type: 'string', value: 'U', required: true } },
    run: async (ctx, f) => {
      const user = await (await ctx.accounts()).requireUser(f.user);
      return {
        userId: user.id,
        email: user.email,
        defaults: { channel: DEFAULT_LEVEL, chatConnectedChannel: CHAT_CHANNEL_DEFAULT_LEVEL },
        channels: await (await ctx.notifyPreferences()).list(user.id),
        quietHours: quietHoursJson(await (await ctx.quietHours()).get(user.id)),
      };
    },
  }),
  defineCommand({
    name: 'notify status',
    summary: 'outbox counts by state and the latest failures with their reasons',
    flags: { limit: { type: 'string', value: 'N' } },
    run: async (ctx, f) => {
      const limit = f.limit === undefined ? 20 : wholeNumberFlag('limit', f.limit, 1000);
      return { email: ctx.config.smtpUrl ? 'on' : 'off (set SMTP_URL)', ...(await (await ctx.alertReports()).outboxStatus(limit)) };
    },
  }),
  quietHoursCommand,
];
