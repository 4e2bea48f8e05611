import { serve } from '@hono/node-server';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { openServices, sqliteServicesOf } from '../../src/services.js';
import { meterCpu } from './cpu-meter.js';

/** The real service on the DATA_DIR the bench gives; prints the channel's webhook token, then its address. */
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' });
const s = sqliteServicesOf(await openServices(config));
const ws = await s.accounts.createWorkspace('Bench');
const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'bench' });
const app = createApp(s);
const fetch = meterCpu(app.fetch, () => {
  const n = (s.db.sqlite.prepare('SELECT count(*) AS n FROM alerts').get() as { n: number }).n;
  s.close();
  return `stored ${n} alerts; `;
});
serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`TOKEN ${channel.webhookToken}\nLISTENING http://127.0.0.1:${info.port}\n`);
});
