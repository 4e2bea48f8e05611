import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { openServices } from '../../src/services.js';
import { BridgeEnv } from '../discord/bridge-env.js';
import { bodyOf } from '../helpers/bodies.js';
import { describeEngines, callOf } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

/** /readyz and /metrics with the real Discord bridge (fake Discord), on both engines as test/discord/ does (BridgeEnv's databases live in a describeEngines block). */

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describeEngines('/readyz and /metrics with the Discord bridge', (engine) => {
  it('reports the real gateway state and backfill progress (fake Discord), in /readyz and in the metrics', async () => {
    const env = await BridgeEnv.create({ engine });
    cleanup.push(() => env.close());
    // A second instance on the same data with metrics on reads the running bridge (what runtime.ts attaches).
    const services = await openServices(loadConfig({ ...env.env, METRICS: '1' }));
    cleanup.push(() => services.close());
    expect(services.engine).toBe(engine);
    services.ops.attachDiscord(env.bridge);
    const call = callOf(createApp(services));
    const readiness = async () => {
      const res = await call('GET', '/readyz');
      return { status: res.status, body: await bodyOf.readiness(res) };
    };

    const ready = await readiness();
    expect(ready.status).toBe(200);
    expect(ready.body.checks.discord).toEqual({ status: 'ok', gateway: 'ready', channels: { live: 1, backfilling: 0, behind: 0 } });
    let text = await (await call('GET', '/metrics')).text();
    expect(text).toContain('alertbridge_discord_gateway_up 1');
    expect(text).toContain('alertbridge_discord_channels{state="live"} 1');

    env.fake.closeConnections(4004, 'Authentication failed'); // fatal: discord.js does not reconnect
    const down = await eventually(async () => {
      const r = await readiness();
      return r.body.checks.discord?.status === 'warn' ? r : null;
    }, 'gateway down');
    expect(down.status).toBe(200); // webhooks still work without Discord
    expect(down.body.checks.discord?.gateway).not.toBe('ready');
    text = await (await call('GET', '/metrics')).text();
    expect(text).toContain('alertbridge_discord_gateway_up 0');
  });
});
