import { UsageError, type Command, type Flags } from '../command.js';
import { MAX_RETENTION_ALERTS, MAX_RETENTION_DAYS, type LimitInput, type RetentionInput } from '../../domain/retention.js';

/** `--days 30`, `--days none`; 0 is refused: "keep 0 days" would delete everything at the next pass. */
function limit(f: Flags, name: string, max: number): LimitInput | undefined {
  if (!f.has(name)) return undefined;
  const v = f.get(name)!;
  if (v === 'none') return 'none';
  const n = /^\d{1,12}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= max)) throw new UsageError(`--${name} must be a whole number from 1 to ${max}, or none (no limit)`);
  return n;
}

function input(f: Flags): RetentionInput {
  const clear = f.has('clear') && f.get('clear') !== 'false';
  if (!clear && !f.has('days') && !f.has('max-alerts')) throw new UsageError('give --days, --max-alerts or --clear');
  if (clear && (f.has('days') || f.has('max-alerts'))) throw new UsageError('--clear removes both limits and takes no --days or --max-alerts');
  return { days: limit(f, 'days', MAX_RETENTION_DAYS), maxAlerts: limit(f, 'max-alerts', MAX_RETENTION_ALERTS), clear };
}

/** Retention settings; pruning itself runs in the service (README: Retention). */
export const retentionCommands: Command[] = [
  {
    name: 'channel set-retention',
    usage: '--channel C [--days N|none] [--max-alerts N|none] [--clear]',
    summary: "keep a channel's alerts N days and/or the newest N (none: no limit; --clear: use the workspace default again)",
    run: (s, f) => s.retentionSettings.setChannel(f.require('channel'), input(f)),
  },
  {
    name: 'workspace set-retention',
    usage: '--workspace W [--days N|none] [--max-alerts N|none] [--clear]',
    summary: 'the retention of channels without their own value (none or --clear: no limit)',
    run: (s, f) => s.retentionSettings.setWorkspace(f.require('workspace'), input(f)),
  },
];
