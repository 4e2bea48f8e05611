import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { meterCpu } from './cpu-meter.js';

/** Baseline: a bare Hono route that parses the same JSON and answers 201 without storing. */
const app = new Hono();
app.post('/api/webhook/:token', async (c) => {
  const body = (await c.req.json()) as { title?: string };
  return c.json({ success: true, alertId: 'x', title: body.title }, 201);
});
serve({ fetch: meterCpu(app.fetch), port: 0, hostname: '127.0.0.1' }, (info) => process.stdout.write(`LISTENING http://127.0.0.1:${info.port}\n`));
