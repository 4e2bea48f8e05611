import { defineCommand, UsageError } from '../command.js';
import { parseWindow, quietHoursJson } from '../../domain/quiet-hours.js';

/**
 * `notify quiet-hours --user U --window 22:00-07:00 --tz Europe/Berlin [--min-level error]`, or `--clear`:
 * a person's quiet hours (docs/notifications.md#quiet-hours), printed as JSON.
 */
export const quietHoursCommand = defineCommand({
  name: 'notify quiet-hours',
  summary: "set a user's quiet hours: inside the window only alerts at or above --min-level (default error) notify; the rest come as one digest e-mail at its end",
  flags: {
    user: { type: 'string', value: 'U', required: true },
    window: { type: 'string', value: 'HH:MM-HH:MM' },
    tz: { type: 'string', value: 'ZONE' },
    'min-level': { type: 'string', value: 'info|warning|error' },
    clear: { type: 'boolean' },
  },
  run: async (ctx, f) => {
    const user = await (await ctx.accounts()).requireUser(f.user);
    const settings = await ctx.quietHours();
    if (f.clear) {
      if (f.window !== undefined || f.tz !== undefined || f['min-level'] !== undefined) throw new UsageError('--clear takes no --window, --tz or --min-level');
      await settings.clear(user.id);
      return { userId: user.id, email: user.email, quietHours: null };
    }
    if (f.window === undefined || f.tz === undefined) throw new UsageError('give --window HH:MM-HH:MM and --tz ZONE, or --clear');
    const quiet = await settings.set(user.id, { ...parseWindow(f.window), timeZone: f.tz, minLevel: f['min-level'] });
    return { userId: user.id, email: user.email, quietHours: quietHoursJson(quiet) };
  },
});
