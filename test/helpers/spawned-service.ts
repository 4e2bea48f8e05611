import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { eventually } from './poll.js';

/**
 * The service and the admin CLI as real child processes, as an operator runs
 * them: `dist/main.js` is what `npm start` runs and `dist/cli/admin.js` what
 * `npm run admin` runs (test/global-setup.ts builds both). The one place
 * tests spawn either.
 */

/** A free loopback port (closed again before the service binds it). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** The environment every spawned process starts from: no inherited secrets, no avatar look-ups leaving the machine. */
const baseEnv = (dataDir: string | undefined) => ({
  PATH: process.env.PATH,
  AVATAR_BASE_URL: '',
  AVATAR_FETCH: '0',
  LOG_LEVEL: 'warn',
  ...(dataDir ? { DATA_DIR: dataDir } : {}),
});

export interface SpawnedService {
  base: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  startMs: number;
  /** Everything it printed (stdout and stderr) so far. */
  output(): string;
  /** Resolves with the exit code, or the signal's name when it was killed by one. */
  exited: Promise<number | string>;
  /** From the bootstrap banner (BOOTSTRAP on, an empty DATA_DIR), rewritten to the loopback address bound. */
  webhookUrl: string | undefined;
  apiToken: string | undefined;
  /** DATA_DIR/first-start.txt when this start bootstrapped (stdout is a pipe here, never a terminal). */
  bannerFile: string | undefined;
}

/** True once the service answers 200 on /healthz; false while it is not listening yet. */
export async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

/**
 * Starts the service on a free port and waits for /healthz (polling, no fixed sleep). `env` is the whole
 * configuration besides the base environment (DATA_DIR included, unless `dataDir` is given);
 * BOOTSTRAP is whatever `env` says (the service's default: on).
 */
export async function spawnService(env: Record<string, string>, opts: { dataDir?: string; timeoutMs?: number } = {}): Promise<SpawnedService> {
  const port = await freePort();
  const started = performance.now();
  let out = '';
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...baseEnv(opts.dataDir), LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const base = `http://127.0.0.1:${port}`;
  const state = await eventually(
    async () => (child.exitCode !== null ? 'exited' : (await healthy(base)) && 'up'),
    'the service to answer /healthz',
    { timeoutMs: opts.timeoutMs ?? 20_000 },
  ).catch(() => 'timed out');
  if (state !== 'up') {
    child.kill('SIGKILL');
    throw new Error(`service did not start (${state}):\n${out}`);
  }
  // Not a terminal: the banner went to DATA_DIR/first-start.txt and stdout names the file.
  const bannerFile = /sign-in link are in (\S+)/.exec(out)?.[1];
  const banner = bannerFile ? fs.readFileSync(bannerFile, 'utf8') : '';
  const webhook = /Webhook URL\s+(\S+)/.exec(banner)?.[1];
  return {
    base,
    child,
    startMs: performance.now() - started,
    output: () => out,
    exited,
    // The banner prints PUBLIC_URL (localhost:PORT by default); talk to the loopback address bound.
    webhookUrl: webhook?.replace(/^https?:\/\/[^/]+/, base),
    apiToken: /API token\s+(ab_[0-9a-f]{48})/.exec(banner)?.[1],
    bannerFile,
  };
}

/** The service on `dir` as the reliability tests run it: warnings only, no bootstrap. */
export function startService(dir: string, env: Record<string, string> = {}, timeoutMs = 20_000): Promise<SpawnedService> {
  return spawnService({ LOG_LEVEL: 'warn', BOOTSTRAP: '0', ...env }, { dataDir: dir, timeoutMs });
}

/** Runs `npm run admin -- <args>` the way it runs it (node dist/cli/admin.js) in its own process. */
export function runAdminProcess(dir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli/admin.js', ...args], {
      env: { ...baseEnv(dir), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON log lines of a service's output. */
export function logLines(output: string): string[] {
  return output.split('\n').filter((l) => l.startsWith('{'));
}
