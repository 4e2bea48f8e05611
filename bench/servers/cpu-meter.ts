import fs from 'node:fs';
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
