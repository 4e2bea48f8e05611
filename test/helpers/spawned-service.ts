import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** A free loopback port (closed again before the service binds it). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

export interface SpawnedService {
  base: string;
  child: ChildProcess;
  /** Everything it printed (stdout and stderr) so far. */
  output(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  webhookUrl: string | undefined;
  apiToken: string | undefined;
}

/**
 * `npm start` as a real process (node + the tsx loader, the same entry point),
 * on a free port, polled until /healthz answers. Reads the bootstrap banner's
 * webhook URL and API token when BOOTSTRAP is on.
 */
export async function spawnService(env: Record<string, string>): Promise<SpawnedService> {
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', AVATAR_BASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.status === 200) {
        const webhook = /Webhook URL\s+(\S+)/.exec(out)?.[1];
        return {
          base,
          child,
          output: () => out,
          exited,
          // The banner prints PUBLIC_URL (localhost:PORT by default); talk to the loopback address we bound.
          webhookUrl: webhook?.replace(/^https?:\/\/[^/]+/, base),
          apiToken: /API token\s+(ab_[0-9a-f]{48})/.exec(out)?.[1],
        };
      }
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not start:\n${out}`);
}

/** The JSON log lines of a service's output. */
export function logLines(output: string): string[] {
  return output.split('\n').filter((l) => l.startsWith('{'));
}
