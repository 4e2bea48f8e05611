import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The real `alertbridge` binary as npm links it (`npx alertbridge` runs this link to packages/client/bin/alertbridge.js). */
export const BIN = path.resolve(import.meta.dirname, '../../node_modules/.bin/alertbridge');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a run sees: only PATH (to find `node` for `run`) and the given settings. */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, NO_COLOR: '1', ...env };
}

/** Spawns the binary and waits for it to exit. */
export function runCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliResult> {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run npm install (it links the workspace's bin)`);
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env: cliEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Spawns the binary and leaves it running (watch); the output accumulates on the returned object. */
export function startCli(args: string[], env: Record<string, string>): { child: ChildProcessWithoutNullStreams; out: CliResult; exited: Promise<number | null> } {
  const child = spawn(BIN, args, { env: cliEnv(env) });
  const out: CliResult = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r((out.code = code))));
  return { child, out, exited };
}
