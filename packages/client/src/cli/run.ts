import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { constants } from 'node:os';
import { fetchWithRetry } from '../retry.js';
import { randomKey, sendAlertWith } from '../send.js';
import type { AlertPayload } from '../types.js';
import { checkUrl, parse, UsageError, webhookFrom, write, type CliIo } from './context.js';
import { describeError } from './main.js';

/** The log tail kept for `workflow.error` and the heartbeat's failure ping. */
export const TAIL_LINES = 50;
const ERROR_MAX_CHARS = 10_000;
const TITLE_MAX_CHARS = 200;

const OPTIONS = {
  name: { type: 'string' },
  heartbeat: { type: 'string' },
} as const;

/**
 * `run [--name N] [--heartbeat PING_URL] -- COMMAND…`: one workflow-run alert (running, then passed
 * or failed with its duration and, on failure, the last 50 lines of output) and/or the heartbeat's
 * /start and /{exit-status} pings. The command's exit status is ours; a failed report only warns.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const dash = args.indexOf('--');
  if (dash < 0 || dash === args.length - 1 || args[dash + 1] === '') throw new UsageError('run needs a command after "--": alertbridge run [--name N] -- COMMAND…');
  const { values, positionals } = parse(args.slice(0, dash), OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected "${positionals[0]}" before "--"`);
  const command = args.slice(dash + 1);
  const webhookUrl = webhookFrom(values, io.env);
  const ping = values.heartbeat?.replace(/\/+$/, '');
  if (ping) checkUrl(ping, '--heartbeat');
  if (!webhookUrl && !ping) throw new UsageError('run reports to a webhook (--webhook-url or ALERTBRIDGE_WEBHOOK_URL) or a heartbeat (--heartbeat PING_URL): give one');

  const name = values.name ?? command.join(' ');
  const step = values.name ?? command[0]!;
  const runId = `${slugOf(values.name ?? command[0]!)}-${new Date().toISOString().replace(/[-:.]/g, '')}-${randomKey().slice(0, 8)}`;
  const base = {
    title: clip(name, TITLE_MAX_CHARS),
    source: clip(`alertbridge run on ${hostname()}`, 200),
    fields: [{ label: 'command', value: clip(command.join(' '), 1000) }],
  };
  const warn = (what: string, err: unknown) => io.stderr.write(`alertbridge: ${what} failed: ${describeError(err).replace(/^alertbridge: /, '')}`);
  let alertId: string | undefined;
  const report = async (payload: AlertPayload, what: string) => {
    if (!webhookUrl) return;
    try {
      alertId = (await sendAlertWith(undefined, webhookUrl, payload)).alertId;
    } catch (err) {
      warn(what, err);
    }
  };
  const pingTo = async (suffix: string, body?: string) => {
    if (!ping) return;
    try {
      await fetchWithRetry(`${ping}/${suffix}`, () => (body === undefined ? { method: 'GET' } : { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, body }), { retries: 3 });
    } catch (err) {
      warn(`heartbeat ping /${suffix}`, err);
    }
  };

  const started = Date.now();
  await Promise.all([
    report({ ...base, workflow: { runId, state: 'running', steps: [{ name: step, state: 'running' }] } }, 'reporting the start'),
    pingTo('start'),
  ]);
  const tail = new LineTail(TAIL_LINES);
  const status = await spawnCommand(command, io, tail);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const passed = status === 0;
  const log = tail.text().slice(-ERROR_MAX_CHARS);
  await Promise.all([
    report(
      {
        ...base,
        fields: [...base.fields, { label: 'duration', value: formatDuration(seconds) }, { label: 'exit status', value: String(status) }],
        workflow: {
          runId,
          state: passed ? 'passed' : 'failed',
          steps: [{ name: step, state: passed ? 'done' : 'failed', seconds, ...(passed ? {} : { info: `exit status ${status}` }) }],
          ...(passed ? {} : { error: log || `exit status ${status}, no output` }),
        },
      },
      'reporting the result',
    ),
    pingTo(String(Math.min(status, 255)), log),
  ]);
  if (values.json) write(io.stderr, JSON.stringify({ runId, alertId: alertId ?? null, status, seconds }));
  else if (alertId) write(io.stderr, `alertbridge: run ${runId} ${passed ? 'passed' : `failed (exit status ${status})`} in ${formatDuration(seconds)}: alert ${alertId}`);
  return status;
}

/** Runs the command with its output passed through and kept in `tail`; the exit status (128+n for a signal, 127 when it cannot start). */
function spawnCommand(command: string[], io: CliIo, tail: LineTail): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['inherit', 'pipe', 'pipe'] });
    // Ctrl-C reaches the child through the terminal's process group; we stay up to report its end.
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward).on('SIGTERM', forward);
    child.stdout.on('data', (d: Buffer) => {
      io.stdout.write(d);
      tail.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      io.stderr.write(d);
      tail.push(d);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      tail.push(Buffer.from(`alertbridge: cannot run ${command[0]}: ${err.message}\n`));
      io.stderr.write(`alertbridge: cannot run ${command[0]}: ${err.message}\n`);
    });
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward).off('SIGTERM', forward);
      resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 127));
    });
  });
}

/** The last `max` lines of a byte stream, decoded as UTF-8. */
export class LineTail {
  #lines: string[] = [];
  #partial = '';
  readonly #decoder = new TextDecoder();
  constructor(readonly max: number) {}

  push(chunk: Uint8Array): void {
    const parts = (this.#partial + this.#decoder.decode(chunk, { stream: true })).split(/\r?\n/);
    this.#partial = parts.pop()!;
    this.#lines.push(...parts);
    if (this.#lines.length > this.max) this.#lines.splice(0, this.#lines.length - this.max);
  }

  text(): string {
    const lines = this.#partial ? [...this.#lines, this.#partial] : this.#lines;
    return lines.slice(-this.max).join('\n');
  }
}

function slugOf(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'run';
}

function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join('')}…`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m} min ${Math.round(seconds % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
