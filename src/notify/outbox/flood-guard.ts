import type { FloodStep, FloodWindow } from '../../domain/alert-store.js';

/** Past this many individual e-mails per recipient per channel per window, the rest go into one digest. */
export const FLOOD_LIMIT = 5;
export const FLOOD_WINDOW_MS = 60_000;

/**
 * Fixed windows per (recipient, channel): the first e-mail opens a window of
 * `windowMs`; the first `limit` in it go out, the rest are folded into the
 * window's digest, due when the window closes. A window whose digest already
 * left (or was dropped) is closed: the next e-mail opens a fresh one.
 */
export function floodStep(window: FloodWindow | undefined, now: number, limit: number, windowMs: number): FloodStep {
  const closed = !window || now >= window.windowEnd || (window.digestId !== null && window.digestState !== 'pending');
  if (closed) return { kind: 'open', windowStart: now, windowEnd: now + windowMs };
  if (window.sent < limit) return { kind: 'count' };
  if (window.digestId !== null) return { kind: 'fold', digestId: window.digestId };
  return { kind: 'new-digest', windowStart: window.windowStart, windowEnd: window.windowEnd };
}
