import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/** Baseline: a bare Hono route that parses the same JSON and answers 201 without storing. */
const app = new Hono();
app.post('/api/webhook/:token', async (c) => {
  const body = (await c.req.json()) as { title?: string };
  return c.json({ success: true, alertId: 'x', title: body.title }, 201);
});
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
serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`LISTENING http://127.0.0.1:${info.port}\n`));
process.on('SIGTERM', () => {
  const cpu = process.cpuUsage(cpuStart);
  process.stderr.write(`CPU ${((cpu.user + cpu.system) / Math.max(1, requests)).toFixed(1)} µs per request over ${requests} requests\n`);
  process.exit(0);
});
