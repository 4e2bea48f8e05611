const DAY_MS = 86_400_000;
const TWO = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

let dayStart = NaN;
let dayPrefix = '';

/**
 * `new Date(ms).toISOString()` for the read API's hot path: a 50-alert page
 * formats 100 timestamps, and Date's formatter cost about as much as the rest
 * of the JSON. The date part is cached per UTC day (a page's alerts mostly
 * share a few days); the time of day is arithmetic and table look-ups.
 * Identical output for every valid time (test/lib-iso-time.test.ts).
 */
export function isoTime(ms: number): string {
  if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
    const start = Math.floor(ms / DAY_MS) * DAY_MS;
    const prefix = new Date(start).toISOString();
    dayStart = start;
    dayPrefix = prefix.slice(0, prefix.length - 13); // up to and including the 'T' (years beyond 9999 have a longer date part)
  }
  let r = ms - dayStart;
  const h = Math.floor(r / 3_600_000);
  r -= h * 3_600_000;
  const m = Math.floor(r / 60_000);
  r -= m * 60_000;
  const s = Math.floor(r / 1000);
  return `${dayPrefix}${TWO[h]}:${TWO[m]}:${TWO[s]}.${THREE[Math.floor(r - s * 1000)]}Z`;
}

/** The UTC month of an instant, `YYYY-MM`: the period usage is counted and billed in. */
export function usageMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}
