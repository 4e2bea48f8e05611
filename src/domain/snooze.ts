/**
 * Snooze presets (the dashboard's menu and `s` key): 1 hour, 4 hours, or until 9:00 tomorrow in the
 * person's time zone, computed without a time-zone library from what Intl knows.
 */

/** Whether Intl knows the zone (an IANA name such as Europe/Berlin, or UTC). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock parts of instant `t` in `zone`. */
function wallClock(t: number, zone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(t);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** The zone's offset from UTC at instant `t`, in ms. */
function offsetAt(t: number, zone: string): number {
  const w = wallClock(t, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(t / 1000) * 1000;
}

/** 9:00 on the day after `now`'s date in `zone`, as an instant (a DST change that night is taken into account). */
export function tomorrowAtNine(now: number, zone: string): number {
  const today = wallClock(now, zone);
  const wall = Date.UTC(today.year, today.month - 1, today.day + 1, 9, 0, 0);
  let t = wall - offsetAt(wall, zone);
  t = wall - offsetAt(t, zone);
  return t;
}

export type SnoozePreset = '1h' | '4h' | 'tomorrow';

export function snoozeUntil(preset: SnoozePreset, now: number, zone: string): number {
  if (preset === '1h') return now + 3_600_000;
  if (preset === '4h') return now + 4 * 3_600_000;
  return tomorrowAtNine(now, isTimeZone(zone) ? zone : 'UTC');
}
