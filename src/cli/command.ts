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
  /** The flags the command takes, e.g. "--workspace W [--private]": the accepted flags are read from it. */
  usage: string;
  summary: string;
  run(s: Services, flags: Flags): unknown | Promise<unknown>;
}

/** The flag names a usage string mentions: "--channel C [--limit N]" → channel, limit. */
export function flagsOf(usage: string): Set<string> {
  return new Set(Array.from(usage.matchAll(/--([a-z][a-z0-9-]*)/g), (m) => m[1]!));
}

/**
 * Parses `--name value`, `--name=value` and bare `--name` (= "true"). A flag
 * not in `allowed` is a usage error: a typo such as `--privte` must not be
 * ignored and leave the command doing something else than asked.
 */
export function parseFlags(args: string[], allowed: ReadonlySet<string>): Flags {
  const values = new Map<string, string>();
  const set = (name: string, value: string) => {
    if (!allowed.has(name)) throw new UsageError(`unknown flag --${name} (see --help)`);
    values.set(name, value);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument "${a}" (flags look like --name value)`);
    const eq = a.indexOf('=');
    if (eq > 0) {
      set(a.slice(2, eq), a.slice(eq + 1));
      continue;
    }
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) set(a.slice(2), 'true');
    else {
      set(a.slice(2), next);
      i++;
    }
  }
  // A command reading a flag its usage string does not name is a bug in the command: the user could never pass it.
  const declared = (n: string) => {
    if (!allowed.has(n)) throw new Error(`the command reads --${n}, which its usage string does not list`);
    return n;
  };
  return {
    get: (n) => values.get(declared(n)),
    has: (n) => values.has(declared(n)),
    require: (n) => {
      const v = values.get(declared(n));
      if (v === undefined || v === 'true') throw new UsageError(`missing --${n}`);
      return v;
    },
  };
}
