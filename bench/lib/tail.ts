import { PerformanceObserver } from 'node:perf_hooks';

/** One timed call: when it started (performance.now), its wall time and the process's CPU time during it, in ms. */
export interface TracedSample {
  start: number;
  wall: number;
  cpu: number;
}

/** A garbage-collection pause of the main thread, as perf_hooks reports it (performance.now timeline, ms). */
interface GcPause {
  start: number;
  duration: number;
  kind: number;
}

/**
 * Records every GC pause while `run` runs. The observer's entries arrive
 * asynchronously, so it is read after `run` and one more turn of the loop.
 */
export async function withGcPauses<T>(run: () => Promise<T>): Promise<{ result: T; pauses: GcPause[] }> {
  const pauses: GcPause[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, duration: e.duration, kind: ((e as { detail?: { kind?: number } }).detail)?.kind ?? 0 });
  });
  obs.observe({ entryTypes: ['gc'] });
  try {
    const result = await run();
    await new Promise((r) => setTimeout(r, 20));
    return { result, pauses };
  } finally {
    obs.disconnect();
  }
}

/** Per-call wall and CPU time (process.cpuUsage: this thread plus V8's helper threads, µs resolution). */
export async function timeTraced(fn: () => unknown): Promise<TracedSample> {
  const c = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const d = process.cpuUsage(c);
  return { start, wall, cpu: (d.user + d.system) / 1000 };
}

/** Where the slowest 1 % of the samples went. */
export interface TailAttribution {
  /** Samples in the slowest 1 %. */
  slow: number;
  /** Of those: a GC pause overlapped the call. */
  withGc: number;
  /** Of those, without a GC: the call waited for the CPU (wall time at least 1.5x its CPU time and 0.2 ms more). */
  descheduled: number;
  /** The rest: the call itself was slow on the CPU. */
  onCpu: number;
  /** Of the slow calls with a GC: those where a major (mark-sweep-compact) or incremental-marking step overlapped, not only scavenges. */
  withMajorGc: number;
  /** Mean scavenge pause and mean major/incremental pause over the whole run (ms). */
  minorPauseMeanMs: number;
  majorPauseMeanMs: number;
  /** GC pause time inside the slow calls, their mean (ms). */
  gcMsPerSlow: number;
  /** p99 of the calls that no GC pause overlapped and that were not descheduled (ms): the request path's own tail. */
  p99CleanMs: number;
  /** Share of all calls that a GC pause overlapped. */
  gcShareAll: number;
}

const MINOR = 1;

function overlap(s: TracedSample, pauses: GcPause[]): number {
  let ms = 0;
  const end = s.start + s.wall;
  for (const p of pauses) {
    const a = Math.max(s.start, p.start);
    const b = Math.min(end, p.start + p.duration);
    if (b > a) ms += b - a;
  }
  return ms;
}

const isDescheduled = (s: TracedSample) => s.wall >= 1.5 * s.cpu && s.wall - s.cpu >= 0.2;

export function attributeTail(samples: TracedSample[], pauses: GcPause[]): TailAttribution {
  const sorted = [...samples].sort((a, b) => a.wall - b.wall);
  const slow = sorted.slice(Math.floor(sorted.length * 0.99));
  let withGc = 0;
  let withMajorGc = 0;
  let descheduled = 0;
  let gcMs = 0;
  const major = pauses.filter((p) => p.kind !== MINOR);
  const minor = pauses.filter((p) => p.kind === MINOR);
  for (const s of slow) {
    const g = overlap(s, pauses);
    gcMs += g;
    if (g > 0) withGc++;
    else if (isDescheduled(s)) descheduled++;
    if (overlap(s, major) > 0) withMajorGc++;
  }
  const mean = (xs: GcPause[]) => (xs.length ? xs.reduce((a, p) => a + p.duration, 0) / xs.length : 0);
  const clean = sorted.filter((s) => overlap(s, pauses) === 0 && !isDescheduled(s));
  const p99Clean = clean[Math.min(clean.length - 1, Math.max(0, Math.ceil(0.99 * clean.length) - 1))]?.wall ?? NaN;
  return {
    slow: slow.length,
    withGc,
    withMajorGc,
    minorPauseMeanMs: mean(minor),
    majorPauseMeanMs: mean(major),
    descheduled,
    onCpu: slow.length - withGc - descheduled,
    gcMsPerSlow: slow.length ? gcMs / slow.length : 0,
    p99CleanMs: p99Clean,
    gcShareAll: samples.filter((s) => overlap(s, pauses) > 0).length / (samples.length || 1),
  };
}
