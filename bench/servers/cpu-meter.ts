/**
 * Counts requests and this process's CPU time from the bench's SIGUSR2 (sent
 * after its warm-up) and prints "CPU <µs> per request" on SIGTERM, then exits.
 */
export function meterCpu<T>(handle: (req: Request) => T, onExit: () => string = () => ''): (req: Request) => T {
  let requests = 0;
  let cpuStart = process.cpuUsage();
  process.on('SIGUSR2', () => {
    requests = 0;
    cpuStart = process.cpuUsage();
  });
  process.on('SIGTERM', () => {
    const cpu = process.cpuUsage(cpuStart);
    const extra = onExit();
    process.stderr.write(`${extra}CPU ${((cpu.user + cpu.system) / Math.max(1, requests)).toFixed(1)} µs per request over ${requests} requests\n`);
    process.exit(0);
  });
  return (req) => {
    requests++;
    return handle(req);
  };
}
