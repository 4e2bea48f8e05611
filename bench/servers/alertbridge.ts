import { serve } from '@hono/node-server';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { openServices, sqliteServicesOf } from '../../src/services.js';
import { meterCpu } from './cpu-meter.js';
import { startRouteWorker } from '../../src/notify/routes/start.js';

/**
 * The real service on the DATA_DIR the bench gives; prints the channel's webhook token, then its address.
 * BENCH_ROUTES=N gives the channel N signed-webhook routes to BENCH_ROUTE_URL (issue 27), and
 * BENCH_ROUTE_WORKER=1 runs the route worker in this process, as `npm start` does.
 */
const routeCount = Number(process.env.BENCH_ROUTES ?? 0);
const config = loadConfig({
  ...process.env, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000',
  ...(routeCount ? { ROUTES_ALLOW_PRIVATE: '1' } : {}),
});
const s = sqliteServicesOf(await openServices(config));
const ws = await s.accounts.createWorkspace('Bench');
const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'bench' });
for (let i = 0; i < routeCount; i++) {
  // The highest rate a route takes: the bench measures the request, not the route's throttle.
  await s.routes.routes.create(channel.id, 'webhook', { url: `${process.env.BENCH_ROUTE_URL}/route-${i}` }, { ratePerMinute: 600 });
}
const worker = routeCount && process.env.BENCH_ROUTE_WORKER === '1' ? startRouteWorker(s) : null;
const app = createApp(s);
const fetch = meterCpu(app.fetch, () => {
  const n = (s.db.sqlite.prepare('SELECT count(*) AS n FROM alerts').get() as { n: number }).n;
  const routed = routeCount
    ? (s.db.sqlite.prepare("SELECT count(*) AS n, sum(state = 'sent') AS sent FROM route_deliveries").get() as { n: number; sent: number | null })
    : null;
  void worker?.stop();
  s.close();
  return `stored ${n} alerts; ${routed ? `ROUTED ${routed.n} SENT ${routed.sent ?? 0}; ` : ''}`;
});
serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`TOKEN ${channel.webhookToken}\nLISTENING http://127.0.0.1:${info.port}\n`);
});
