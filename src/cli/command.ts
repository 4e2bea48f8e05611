import type { Services } from '../services.js';

export class UsageError extends Error {}

export interface Flags {
  get(name: string): string | undefined;
  require(name: string): string;
  has(name: string): boolean;
}

/** One admin command: `npm run admin -- <group> <action> [--flag value]...`. */
export interface Command {
  /** e.g. "channel create" */
  name: string;
  usage: string;
  summary: string;
  run(s: Services, flags: Flags): unknown | Promise<unknown>;
}

export function parseFlags(args: string[]): Flags {
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument "${a}" (flags look like --name value)`);
    const eq = a.indexOf('=');
    if (eq > 0) {
      values.set(a.slice(2, eq), a.slice(eq + 1));
      continue;
    }
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) values.set(a.slice(2), 'true');
    else {
      values.set(a.slice(2), next);
      i++;
    }
  }
  return {
    get: (n) => values.get(n),
    has: (n) => values.has(n),
    require: (n) => {
      const v = values.get(n);
      if (v === undefined || v === 'true') throw new UsageError(`missing --${n}`);
      return v;
    },
  };
}
