import { MAX_RETENTION_ALERTS, MAX_RETENTION_DAYS, type LimitInput, type RetentionInput } from '../../domain/retention.js';
import { defineCommand, UsageError, wholeNumberFlag, type Command } from '../command.js';

const FLAGS = {
  days: { type: 'string', value: 'N|none' },
  'max-alerts': { type: 'string', value: 'N|none' },
  clear: { type: 'boolean' },
} as const;

/** `--days 30`, `--days none`; 0 is refused: "keep 0 days" would delete everything at the next pass. */
function limit(v: string | undefined, name: string, max: number): LimitInput | undefined {
  if (v === undefined) return undefined;
  return v === 'none' ? 'none' : wholeNumberFlag(name, v, max, ', or none (no limit)');
}

function input(f: { days: string | undefined; 'max-alerts': string | undefined; clear: boolean }): RetentionInput {
  if (!f.clear && f.days === undefined && f['max-alerts'] === undefined) throw new UsageError('give --days, --max-alerts or --clear');
  if (f.clear && (f.days !== undefined || f['max-alerts'] !== undefined)) {
    throw new UsageError('--clear removes both limits and takes no --days or --max-alerts');
  }
  return { days: limit(f.days, 'days', MAX_RETENTION_DAYS), maxAlerts: limit(f['max-alerts'], 'max-alerts', MAX_RETENTION_ALERTS), clear: f.clear };
}

/** Retention settings; pruning itself runs in the service (docs/operations.md "Retention"). */
export const retentionCommands: Command[] = [
  defineCommand({
    name: 'channel set-retention',
    summary: "keep a channel's alerts N days and/or the newest N (none: no limit; --clear: use the workspace default again)",
    flags: { channel: { type: 'string', value: 'C', required: true }, ...FLAGS },
    run: async (ctx, f) => (await ctx.retentionSettings()).setChannel(f.channel, input(f)),
  }),
  defineCommand({
    name: 'workspace set-retention',
    summary: 'the retention of channels without their own value (none or --clear: no limit)',
    flags: { workspace: { type: 'string', value: 'W', required: true }, ...FLAGS },
    run: async (ctx, f) => (await ctx.retentionSettings()).setWorkspace(f.workspace, input(f)),
  }),
];
