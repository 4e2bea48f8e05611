import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { openServices } from '../../src/services.js';
import { serveMetered } from './cpu-meter.js';

/**
 * One node for bench/cluster.bench.ts: the real service on whatever the environment names (the
 * SQLite file in DATA_DIR, or PostgreSQL with DATABASE_URL), the HTTP app only (no workers, as
 * bench/servers/alertbridge.ts). With BENCH_SETUP=1 it creates the bench's workspace, channel and
 * API token first and prints them; the other nodes of a cluster share them through the database.
 * Served by serveMetered (cpu-meter.ts): SIGUSR2 starts counting requests and CPU time, SIGUSR1 prints
 * "CPU <µs> per request over <n> requests" for what was counted since; SIGTERM closes and exits.
 */
const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', AVATAR_BASE_URL: '', RATE_LIMIT_PER_MINUTE: '100000000', WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000000' });
const s = await openServices(config);
if (process.env.BENCH_SETUP === '1') {
  const ws = await s.accounts.createWorkspace('Bench');
  const user = await s.accounts.createUser('bench@example.com');
  await s.accounts.addMember(ws.id, user.id, 'owner');
  const channel = await s.accounts.createChannel({ workspaceId: ws.id, name: 'bench' });
  const { token } = await s.accounts.createToken(ws.id, user.id);
  process.stdout.write(`TOKEN ${channel.webhookToken}\nAPI ${token}\n`);
}
const app = createApp(s);

serveMetered((req) => app.fetch(req), () => s.close());
