import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { eventually } from '../helpers/poll.js';

/** The service and the admin CLI as real child processes, as an operator runs them. */

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

const baseEnv = (dir: string) => ({ PATH: process.env.PATH, DATA_DIR: dir, AVATAR_BASE_URL: '', LOG_LEVEL: 'warn' });

export interface ServiceProcess {
  base: string;
  child: ChildProcess;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  startMs: number;
  output(): string;
  exited: Promise<number | null>;
}

/** True once the service answers 200 on /healthz; false while it is not listening yet. */
export async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

/** Spawns `dist/main.js` (what `npm start` runs; test/global-setup.ts builds it) on a free port and waits for /healthz (polling, no fixed sleep). */
export async function startService(dir: string, env: Record<string, string> = {}, timeoutMs = 20_000): Promise<ServiceProcess> {
  const port = await freePort();
  const started = performance.now();
  let out = '';
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...baseEnv(dir), PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const base = `http://127.0.0.1:${port}`;
  const state = await eventually(
    async () => {
      if (child.exitCode !== null) return 'exited';
      return (await healthy(base)) && 'up';
    },
    'the service to answer /healthz',
    { timeoutMs },
  ).catch(() => 'timed out');
  if (state === 'up') return { base, child, startMs: performance.now() - started, output: () => out, exited };
  child.kill('SIGKILL');
  throw new Error(`service did not start:\n${out}`);
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
