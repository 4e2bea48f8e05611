import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AdminServices } from '../services/admin.js';

/** The command line itself is wrong (exit 2): nothing was read or written. */
export class UsageError extends Error {}

/** One flag: `--name value` (string) or bare `--name` (boolean). */
export type FlagSpec =
  | { type: 'string'; required?: boolean; /** shown in the usage line, e.g. "W" for --workspace W */ value: string }
  /** Given any number of times (`--field a=1 --field b=2`): every value, in order. */
  | { type: 'string'; multiple: true; value: string }
  | { type: 'boolean' };

export type FlagSpecs = Record<string, FlagSpec>;

/** What `run` receives: required strings are strings, optional ones may be undefined, booleans are booleans. */
export type FlagValues<F extends FlagSpecs> = {
  [K in keyof F]: F[K] extends { type: 'boolean' }
    ? boolean
    : F[K] extends { multiple: true }
      ? string[]
      : F[K] extends { required: true }
        ? string
        : string | undefined;
};

/** One admin command: `admin <group> <action> [--flag value]...`. */
export interface CommandDef<F extends FlagSpecs> {
  /** e.g. "channel create" */
  name: string;
  summary: string;
  flags: F;
  /** Returns the one JSON object the command prints. */
  run(ctx: AdminServices, flags: FlagValues<F>): unknown;
}

/** A command with its flag types erased, so commands of every shape fit in one list. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(ctx: AdminServices, args: string[]): unknown;
}

/** Keeps the flag types of `def` for its `run` while giving the list an erased shape. */
export function defineCommand<const F extends FlagSpecs>(def: CommandDef<F>): Command {
  return {
    name: def.name,
    summary: def.summary,
    usage: usageOf(def.flags),
    run: (ctx, args) => def.run(ctx, parseFlags(def.flags, args)),
  };
}

/** A flag's value that must be one of `choices` (a role, a level), typed as that choice. */
export function choiceFlag<T extends string>(name: string, value: string, choices: readonly T[]): T {
  const choice = choices.find((c) => c === value);
  if (choice === undefined) throw new UsageError(`--${name} must be one of ${choices.join(', ')}`);
  return choice;
}

/**
 * A flag's value as a whole number from 1 to `max`: digits only (no sign,
 * exponent or blank), so what is accepted is what was meant. `orElse` tells
 * what else the flag takes, for the message (", or none (no limit)").
 */
export function wholeNumberFlag(name: string, value: string, max: number, orElse = ''): number {
  const n = /^\d{1,12}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= max)) throw new UsageError(`--${name} must be a whole number from 1 to ${max}${orElse}`);
  return n;
}

/** "--workspace W --name N [--slug S] [--private]": derived from the specs, so help never drifts from parsing. */
function usageOf(flags: FlagSpecs): string {
  return Object.entries(flags)
    .map(([name, spec]) => {
      const text = spec.type === 'string' ? `--${name} ${spec.value}` : `--${name}`;
      if ('multiple' in spec) return `[${text}]...`;
      return spec.type === 'string' && 'required' in spec && spec.required ? text : `[${text}]`;
    })
    .join(' ');
}

/**
 * `node:util` parseArgs in strict mode: an unknown flag (a typo such as `--privte`), a positional
 * argument, a string flag without its value or a value given to a boolean flag are usage errors,
 * never ignored, so a command cannot silently do something else than asked.
 */
export function parseFlags<F extends FlagSpecs>(specs: F, args: string[]): FlagValues<F> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(specs)) options[name] = { type: spec.type, multiple: 'multiple' in spec };
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    values = parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | string[] | undefined>;
  } catch (err) {
    throw new UsageError(describeParseError(err, args, options));
  }
  for (const [name, spec] of Object.entries(specs)) {
    const v = values[name];
    if (spec.type === 'boolean') values[name] = v === true;
    else if ('multiple' in spec) values[name] = v ?? [];
    else if (spec.required && (v === undefined || v === '')) throw new UsageError(`missing --${name}`);
  }
  // parseArgs checked every value against `specs`, which FlagValues<F> is computed from.
  return values as FlagValues<F>;
}

/**
 * parseArgs' own messages vary between Node versions and suggest `--` quoting that does not apply
 * here; its error codes are stable, and a non-strict pass over the same arguments names the culprit.
 */
function describeParseError(err: unknown, args: string[], options: NonNullable<ParseArgsConfig['options']>): string {
  const code = (err as { code?: unknown }).code;
  const { tokens = [] } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const unknown = tokens.find((t) => t.kind === 'option' && !Object.hasOwn(options, t.name));
    return `unknown flag ${unknown?.kind === 'option' ? unknown.rawName : ''} (see --help)`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const extra = tokens.find((t) => t.kind === 'positional');
    return `unexpected argument "${extra?.kind === 'positional' ? extra.value : ''}" (flags look like --name value)`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    for (const t of tokens) {
      if (t.kind !== 'option' || !Object.hasOwn(options, t.name)) continue;
      if (options[t.name]!.type === 'boolean' && t.value !== undefined) return `--${t.name} takes no value`;
      if (options[t.name]!.type !== 'string') continue;
      if (t.value === undefined) return `--${t.name} needs a value`;
      // Strict parsing refuses "--name --other" (the value looks like a flag); the lenient pass took it as the value.
      if (!t.inlineValue && t.value.startsWith('-')) return `--${t.name} needs a value (write --${t.name}=${t.value} if that is the value)`;
    }
  }
  return err instanceof Error ? err.message : String(err);
}
