import fs from 'node:fs';
import { serve } from '@hono/node-server';
import inspector from 'node:inspector';

/**
 * Counts requests and this process's CPU time from the bench's SIGUSR2 (sent
 * after its warm-up) and prints "CPU <µs> per request" on SIGTERM, then exits.
 * With BENCH_CPU_PROFILE=<file> it also samples a CPU profile over the same window
 * and writes it there (bench/lib/cpu-stages.ts splits it into stages).
 */
export function meterCpu<T>(handle: (req: Request) => T, onExit: () => string = () => ''): (req: Request) => T {
  let requests = 0;
  let cpuStart = process.cpuUsage();
  const profileFile = process.env.BENCH_CPU_PROFILE;
  const session = profileFile ? new inspector.Session() : undefined;
  session?.connect();
  process.on('SIGUSR2', () => {
    requests = 0;
    cpuStart = process.cpuUsage();
    session?.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 200 }, () => session.post('Profiler.start')));
  });
  process.on('SIGTERM', () => {
    const cpu = process.cpuUsage(cpuStart);
    const extra = onExit();
    const report = `${extra}CPU ${((cpu.user + cpu.system) / Math.max(1, requests)).toFixed(1)} µs per request over ${requests} requests\n`;
    if (!session) {
      process.stderr.write(report);
      process.exit(0);
    }
    session.post('Profiler.stop', (err, result) => {
      if (!err) fs.writeFileSync(profileFile!, JSON.stringify(result.profile));
      process.stderr.write(report);
      process.exit(0);
    });
  });
  return (req) => {
    requests++;
    return handle(req);
  };
}

/**
 * Serves `handle` on a free loopback port (printing "LISTENING <url>") under the cluster suite's
 * signals: SIGUSR2 starts counting requests and CPU time, SIGUSR1 prints
 * "CPU <µs> per request over <n> requests" for what was counted since, SIGTERM runs `close` and exits.
 */
export function serveMetered(handle: (req: Request) => Response | Promise<Response>, close: () => unknown): void {
  let requests = 0;
  let cpuStart = process.cpuUsage();
  process.on('SIGUSR2', () => {
    requests = 0;
    cpuStart = process.cpuUsage();
  });
  process.on('SIGUSR1', () => {
    const cpu = process.cpuUsage(cpuStart);
    process.stderr.write(`CPU ${((cpu.user + cpu.system) / Math.max(1, requests)).toFixed(1)} µs per request over ${requests} requests\n`);
  });
  process.on('SIGTERM', () => {
    void Promise.resolve()
      .then(close)
      .finally(() => process.exit(0));
  });
  serve(
    {
      fetch: (req) => {
        requests++;
        return handle(req);
      },
      port: 0,
      hostname: '127.0.0.1',
    },
    (info) => process.stdout.write(`LISTENING http://127.0.0.1:${info.port}\n`),
  );
}
