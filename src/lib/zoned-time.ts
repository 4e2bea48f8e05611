/**
 * Wall-clock time in an IANA time zone, through Intl (the platform's tz database), so daylight
 * saving is the zone's own: a window "02:00-04:00 Europe/Berlin" is read against the local time at
 * each instant, never a fixed offset. Formatters are cached per zone (they are costly to build).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's canonical spelling when Intl knows it (`europe/berlin` → `Europe/Berlin`), else null. */
export function canonicalTimeZone(zone: string): string | null {
  if (zone.length === 0 || zone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(zone)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** The weekday (0 = Sunday) and minute of the day at `instant` in `timeZone` (a zone canonicalTimeZone accepted). */
export function localTime(instant: number, timeZone: string): { weekday: number; minute: number } {
  let weekday = 0;
  let hour = 0;
  let minute = 0;
  for (const part of formatterOf(timeZone).formatToParts(instant)) {
    if (part.type === 'weekday') weekday = WEEKDAYS.indexOf(part.value as (typeof WEEKDAYS)[number]);
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { weekday, minute: hour * 60 + minute };
}

/** A daily or weekly window: minutes of the day; `start > end` crosses midnight into the next day. */
export interface LocalWindow {
  /** Bit per weekday the window starts on (Sunday = bit 0); 127 for every day. */
  days: number;
  start: number;
  end: number;
  timeZone: string;
}

/** Whether `instant` falls inside the window, read on the zone's wall clock. */
export function insideWindow(w: LocalWindow, instant: number): boolean {
  const { weekday, minute } = localTime(instant, w.timeZone);
  const on = (day: number) => (w.days & (1 << ((day + 7) % 7))) !== 0;
  if (w.start < w.end) return on(weekday) && minute >= w.start && minute < w.end;
  // Crossing midnight: the evening part on a listed day, or the morning part after one.
  return (on(weekday) && minute >= w.start) || (on(weekday - 1) && minute < w.end);
}

/** `HH:MM` (24-hour) as minutes of the day, or null. */
export function parseClock(s: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

export function formatClock(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}
