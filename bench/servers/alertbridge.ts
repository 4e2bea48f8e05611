import { serve } from '@hono/node-server';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createServices } from '../../src/services.js';

/** The real service on the DATA_DIR the bench gives; prints the channel's webhook token, then its address. */
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000' });
const s = createServices(config);
const ws = s.accounts.createWorkspace('Bench');
const channel = s.accounts.createChannel({ workspaceId: ws.id, name: 'bench' });
const app = createApp(s);
let requests = 0;
let cpuStart = process.cpuUsage();
// The bench sends SIGUSR2 after its warm-up: CPU per request is counted from there.
process.on('SIGUSR2', () => {
  requests = 0;
  cpuStart = process.cpuUsage();
});
const fetch = (req: Request) => {
  requests++;
  return app.fetch(req);
};
serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`TOKEN ${channel.webhookToken}\nLISTENING http://127.0.0.1:${info.port}\n`);
});
process.on('SIGTERM', () => {
  const n = (s.db.sqlite.prepare('SELECT count(*) AS n FROM alerts').get() as { n: number }).n;
  const cpu = process.cpuUsage(cpuStart);
  process.stderr.write(`stored ${n} alerts; CPU ${((cpu.user + cpu.system) / Math.max(1, requests)).toFixed(1)} µs per request over ${requests} requests\n`);
  s.close();
  process.exit(0);
});
