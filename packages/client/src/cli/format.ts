import type { AnyAlert, Channel } from '../types.js';

const COLOURS: Record<string, string> = { INFO: '\x1b[36m', SUCCESS: '\x1b[32m', WARNING: '\x1b[33m', ERROR: '\x1b[31m', CHAT: '\x1b[35m' };
const RESET = '\x1b[0m';

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export function useColour(stdout: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return Boolean(stdout.isTTY) && !env.NO_COLOR;
}

export function levelOf(a: AnyAlert): string {
  return 'level' in a ? a.level : 'CHAT';
}

export function titleOf(a: AnyAlert): string {
  if ('title' in a) return a.title;
  const text = (a.message ?? '').split('\n')[0] ?? '';
  return `${a.author.name}: ${text}`;
}

/** `HH:MM:SS` in local time. */
export function clock(iso: string): string {
  const d = new Date(iso);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** One line per alert: time, level (coloured on a TTY), channel, title. */
export function alertLine(a: AnyAlert, channel: string, colour: boolean, time = a.createdAt): string {
  const level = levelOf(a).padEnd(7);
  return `${clock(time)}  ${colour ? `${COLOURS[levelOf(a)] ?? ''}${level}${RESET}` : level}  #${channel}  ${titleOf(a)}`;
}

export function channelNames(channels: readonly Channel[]): Map<string, string> {
  return new Map(channels.map((c) => [c.id, c.slug]));
}
