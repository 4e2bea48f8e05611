import { loadConfig, ConfigError } from '../config.js';
import { AppError } from '../domain/errors.js';
import { createLogger } from '../lib/logger.js';
import { createServices } from '../services.js';
import { flagsOf, parseFlags, UsageError, type Command } from './command.js';
import { alertCommands } from './commands/alerts.js';
import { coreCommands } from './commands/core.js';
import { dashboardCommands } from './commands/dashboard.js';
import { discordCommands } from './commands/discord.js';
import { notifyCommands } from './commands/notify.js';
import { offlineOpsCommands, opsCommands, type OfflineCommand } from './commands/ops.js';
import { OpsRefusal } from '../ops/files.js';

/** Every command group; a part of the service adds its commands here. */
const COMMANDS: (Command | OfflineCommand)[] = [...coreCommands, ...alertCommands, ...discordCommands, ...notifyCommands, ...dashboardCommands, ...opsCommands, ...offlineOpsCommands];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: npm run --silent admin -- <command> [--flag value]...',
    '',
    'Prints exactly one JSON object on stdout. Uses the same environment as the server (DATA_DIR, ...)',
    'and is safe to run while the server runs.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.usage}\n  ${' '.repeat(width)}  ${c.summary}`),
  ].join('\n');
}

export async function runAdmin(argv: string[], env: Record<string, string | undefined> = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  if (argv.length === 0 || argv.includes('--help') || argv[0] === 'help') {
    return { code: argv.length === 0 ? 2 : 0, stdout: argv.length === 0 ? '' : help() + '\n', stderr: argv.length === 0 ? help() + '\n' : '' };
  }
  const cmd = COMMANDS.find((c) => {
    const words = c.name.split(' ');
    return words.every((w, i) => argv[i] === w);
  });
  if (!cmd) return { code: 2, stdout: '', stderr: `unknown command "${argv.slice(0, 2).join(' ')}"\n\n${help()}\n` };
  let services;
  try {
    const flags = parseFlags(argv.slice(cmd.name.split(' ').length), flagsOf(cmd.usage));
    const config = loadConfig(env); // the CLI never bootstraps: only main.ts reads `bootstrap`
    if ('offline' in cmd) return { code: 0, stdout: JSON.stringify(await cmd.run(config, flags)) + '\n', stderr: '' };
    services = createServices(config, { logger: createLogger('silent') });
    const result = await cmd.run(services, flags);
    return { code: 0, stdout: JSON.stringify(result) + '\n', stderr: '' };
  } catch (err) {
    if (err instanceof UsageError) return { code: 2, stdout: '', stderr: `${cmd.name}: ${err.message}\nusage: ${cmd.name} ${cmd.usage}\n` };
    if (err instanceof AppError) return { code: 1, stdout: '', stderr: `${cmd.name}: ${err.detail ?? err.message}\n` };
    if (err instanceof OpsRefusal) return { code: 2, stdout: '', stderr: `${cmd.name}: ${err.message}\n` };
    if (err instanceof ConfigError) return { code: 2, stdout: '', stderr: `${cmd.name}: ${err.message}\n` };
    return { code: 1, stdout: '', stderr: `${cmd.name}: ${(err as Error).message}\n` };
  } finally {
    services?.close();
  }
}

const isMain = import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('admin.ts');
if (isMain) {
  const result = await runAdmin(process.argv.slice(2));
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}
