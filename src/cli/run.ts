import { loadConfig, ConfigError } from '../config.js';
import { AppError, type ErrorCode } from '../domain/errors.js';
import { UsageError, type Command } from './command.js';
import { alertCommands } from './commands/alerts.js';
import { coreCommands } from './commands/core.js';
import { dashboardCommands } from './commands/dashboard.js';
import { discordCommands } from './commands/discord.js';
import { notifyCommands } from './commands/notify.js';
import { opsCommands } from './commands/ops.js';
import { retentionCommands } from './commands/retention.js';
import { routeCommands } from './commands/routes.js';
import { signingCommands } from './commands/signing.js';
import { silenceCommands } from './commands/silences.js';
import { escalationCommands } from './commands/escalation.js';
import { heartbeatCommands } from './commands/heartbeats.js';
import { transferCommands } from './commands/transfer.js';
import { ssoCommands } from './commands/sso.js';
import { OpsRefusal } from '../ops/files.js';
import { AdminServices } from '../services/admin.js';

/** Every command group; a part of the service adds its commands here. */
const COMMANDS: Command[] = [...coreCommands, ...discordCommands, ...notifyCommands, ...dashboardCommands, ...opsCommands, ...retentionCommands, ...alertCommands, ...signingCommands, ...routeCommands, ...silenceCommands, ...escalationCommands, ...heartbeatCommands, ...transferCommands, ...ssoCommands];

/**
 * Exit codes (docs/admin-cli.md): 2 when the command line is wrong, the same command can never succeed
 * (usage, or a value the domain refuses as invalid); 1 when it is well-formed but the data says no:
 * a look-up failed, or the name is already taken (a conflict, like a look-up, depends on what is stored).
 */
const EXIT_USAGE = 2;
const EXIT_REFUSED = 1;
const VALIDATION_CODES: ReadonlySet<ErrorCode> = new Set(['invalid-body', 'invalid-query', 'invalid-payload']);

export interface AdminResult {
  code: number;
  stdout: string;
  stderr: string;
}

function globalHelp(commands: Command[] = COMMANDS): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: npm run --silent admin -- <command> [--flag value]...   (or: node dist/cli/admin.js <command> ...)',
    '',
    'Prints exactly one JSON object on stdout. Exit codes: 0 done, 2 usage or validation error, 1 look-up',
    'error or conflict; nothing is written when it fails. Uses the same environment as the server',
    '(DATA_DIR, ...) and is safe to run while the server runs. `<command> --help` shows one command.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.usage}\n  ${' '.repeat(width)}  ${c.summary}`),
  ].join('\n');
}

const commandHelp = (c: Command) => `usage: ${c.name} ${c.usage}\n\n${c.summary}`;
const isHelp = (a: string) => a === '--help' || a === '-h';

export async function runAdmin(argv: string[], env: Record<string, string | undefined> = process.env): Promise<AdminResult> {
  if (argv.length === 0) return { code: EXIT_USAGE, stdout: '', stderr: globalHelp() + '\n' };
  const cmd = COMMANDS.find((c) => c.name.split(' ').every((w, i) => argv[i] === w));
  if (!cmd) {
    // `--help`, `help`, or a group followed by --help (`channel --help`): the matching commands.
    const words = argv.filter((a) => !isHelp(a) && a !== 'help');
    const matching = COMMANDS.filter((c) => words.every((w, i) => c.name.split(' ')[i] === w));
    if (argv.some((a) => isHelp(a) || a === 'help') && matching.length > 0) return { code: 0, stdout: globalHelp(matching) + '\n', stderr: '' };
    return { code: EXIT_USAGE, stdout: '', stderr: `unknown command "${argv.slice(0, 2).join(' ')}"\n\n${globalHelp()}\n` };
  }
  const args = argv.slice(cmd.name.split(' ').length);
  if (args.some(isHelp)) return { code: 0, stdout: commandHelp(cmd) + '\n', stderr: '' };

  let ctx: AdminServices | undefined;
  try {
    ctx = new AdminServices(loadConfig(env)); // the CLI never bootstraps: only main.ts reads `bootstrap`
    const result = await cmd.run(ctx, args);
    return { code: 0, stdout: JSON.stringify(result) + '\n', stderr: '' };
  } catch (err) {
    const fail = (code: number, message: string) => ({ code, stdout: '', stderr: `${cmd.name}: ${message}\n` });
    if (err instanceof UsageError) return fail(EXIT_USAGE, `${err.message}\nusage: ${cmd.name} ${cmd.usage}`);
    if (err instanceof ConfigError) return fail(EXIT_USAGE, err.message);
    // Backup/restore refusals (target exists, service still running, not our database): the command as given cannot succeed.
    if (err instanceof OpsRefusal) return fail(EXIT_USAGE, err.message);
    if (err instanceof AppError) return fail(VALIDATION_CODES.has(err.code) ? EXIT_USAGE : EXIT_REFUSED, err.detail ?? err.message);
    return fail(EXIT_REFUSED, err instanceof Error ? err.message : String(err));
  } finally {
    await ctx?.close();
  }
}
