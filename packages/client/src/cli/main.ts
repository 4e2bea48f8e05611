import { AlertbridgeError } from '../errors.js';
import { UsageError, type CliIo } from './context.js';
import { mcp } from './mcp.js';
import { ack, list, read, reopen, resolve, show } from './read.js';
import { run } from './run.js';
import { send } from './send.js';
import { watch } from './watch.js';

export type Command = (args: string[], io: CliIo) => Promise<number>;

/** Each command returns its exit status. */
export const COMMANDS: Record<string, Command> = { send, run, watch, list, show, read, ack, resolve, reopen, mcp };

export const USAGE = `Usage: alertbridge <command> [options]

Sending (ALERTBRIDGE_WEBHOOK_URL or --webhook-url):
  send TITLE [--level L] [--emoji E] [--message TEXT|-] [--field label=value]… [--link URL] [--link-text T]
             [--source S] [--attach FILE]… [--dedup-key K] [--resolve] [--idempotency-key K]
  run [--name N] [--heartbeat PING_URL] -- COMMAND…   a workflow run and/or heartbeat pings; exits with COMMAND's status

Reading (ALERTBRIDGE_URL and ALERTBRIDGE_TOKEN, or --url and --token):
  watch [--channel C]…        the live stream, one line per alert, resuming after drops
  list [CHANNEL] [--level L] [--status S] [--limit N]   channels, or a channel's newest alerts
  show ID | read ID [--unread] | ack ID | resolve ID | reopen ID
  mcp                         the MCP tools over stdio, for assistants (docs/mcp.md)

Every command takes --json (machine-readable output) and --help.
Exit status: 0 done, 1 refused by the service or unreachable (the problem's title on stderr), 2 usage error.`;

/** Runs one command line and returns the exit status (0 done, 1 refused, 2 usage error). */
export async function main(argv: string[], io: CliIo, commands: Record<string, Command> = COMMANDS): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.stderr : io.stdout).write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr.write(`alertbridge: unknown command "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  // `run … -- cmd --help` is the command's own --help, not ours.
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (own.includes('--help') || own.includes('-h')) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    return await command(args, io);
  } catch (err) {
    io.stderr.write(describeError(err));
    return err instanceof UsageError ? 2 : 1;
  }
}

/** The stderr text of a failure: the problem's title, then its detail and each payload issue. */
export function describeError(err: unknown): string {
  if (err instanceof UsageError) return `alertbridge: ${err.message}\nRun "alertbridge --help" for the usage.\n`;
  if (err instanceof AlertbridgeError) {
    const lines = [`alertbridge: ${err.title} (${err.status})`];
    if (err.detail) lines.push(`  ${err.detail}`);
    for (const d of err.details) {
      const path = Array.isArray(d.path) ? d.path.join('.') : '';
      if (typeof d.message === 'string') lines.push(`  - ${path ? `${path}: ` : ''}${d.message}`);
    }
    if (err.requestId) lines.push(`  request id: ${err.requestId}`);
    return `${lines.join('\n')}\n`;
  }
  const e = err as Error & { cause?: { message?: string } };
  return `alertbridge: ${e.message ?? String(err)}${e.cause?.message ? ` (${e.cause.message})` : ''}\n`;
}
