import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertbridgeApi, sendAlert, type StreamEvent } from '../../packages/client/src/index.js';
import { eventually } from '../helpers/poll.js';
import { seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { FaultyProxy } from './proxy.js';

/**
 * api.stream() against the real /api/stream (both engines: vitest.config.ts ON_POSTGRES) behind a
 * proxy that cuts the connection: the client reconnects with Last-Event-ID, and what was posted
 * while it was away arrives once, in order, with nothing missing and nothing repeated.
 */
describe('api.stream()', () => {
  let h: Harness;
  let proxy: FaultyProxy;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: AlertbridgeApi;
  let controller: AbortController;

  beforeEach(async () => {
    h = await startHarness({ serve: true });
    seed = await seedWorkspace(h.services);
    proxy = await FaultyProxy.start(h.base);
    api = new AlertbridgeApi({ baseUrl: proxy.url, token: seed.ownerToken });
    controller = new AbortController();
  });
  afterEach(async () => {
    controller.abort();
    await proxy.close();
    await h.close();
  });

  const post = async (channel: 'deploys' | 'general' | 'secret', title: string) =>
    (await sendAlert(`${h.base}/api/webhook/${seed[channel].webhookToken}`, { title })).alertId;

  /** Runs the stream into an array in the background; resolves `opened` on each connection. */
  function collect(options: Parameters<AlertbridgeApi['stream']>[0] = {}) {
    const events: StreamEvent[] = [];
    let opens = 0;
    const done = (async () => {
      for await (const e of api.stream({ reconnectDelayMs: 300, ...options, signal: controller.signal, onOpen: () => opens++ })) events.push(e);
    })();
    const created = () => events.filter((e) => e.event === 'alert.created').map((e) => (e.data as { id: string }).id);
    return { events, created, opens: () => opens, done };
  }

  it('resumes after a dropped connection with no gap and no duplicate', async () => {
    const s = collect();
    await eventually(() => s.opens() === 1, 'the stream to open');
    const before = [await post('deploys', 'one'), await post('general', 'two'), await post('deploys', 'three')];
    await eventually(() => s.created().length === 3, 'three events');
    proxy.dropConnections();
    // Posted while the client waits to reconnect: only Last-Event-ID brings these back.
    const during = [await post('deploys', 'four'), await post('general', 'five')];
    await eventually(() => s.opens() === 2, 'the reconnect');
    const after = [await post('deploys', 'six')];
    await eventually(() => s.created().length >= 6, 'six events');
    expect(s.created()).toEqual([...before, ...during, ...after]);
    const streamRequests = proxy.requests.filter((r) => r.path.startsWith('/api/stream'));
    expect(streamRequests.map((r) => r.headers['last-event-id'])).toEqual([undefined, s.events[2]!.id]);
    const ids = s.events.map((e) => BigInt(e.id!));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
    controller.abort();
    await s.done;
  });

  it('never yields an event twice, even when the server replays from an older id', async () => {
    const s = collect();
    await eventually(() => s.opens() === 1, 'the stream to open');
    const first = [await post('deploys', 'a'), await post('deploys', 'b'), await post('deploys', 'c')];
    await eventually(() => s.created().length === 3, 'three events');
    // The reconnect asks for everything after the first event: b and c come again and must be dropped.
    const stale = s.events[0]!.id!;
    proxy.rewrite = (headers, path) => {
      if (path.startsWith('/api/stream') && headers['last-event-id']) headers['last-event-id'] = stale;
    };
    proxy.dropConnections();
    await eventually(() => s.opens() === 2, 'the reconnect');
    const d = await post('deploys', 'd');
    await eventually(() => s.created().includes(d), 'the event after the replay');
    expect(s.created()).toEqual([...first, d]);
  });

  it('follows only the given channels: one by the server, several by the client', async () => {
    const one = collect({ channels: ['deploys'] });
    await eventually(() => one.opens() === 1, 'the stream to open');
    const d1 = await post('general', 'not this');
    const d2 = await post('deploys', 'this');
    await eventually(() => one.created().includes(d2), 'the deploys event');
    expect(one.created()).toEqual([d2]);
    expect(proxy.requests.find((r) => r.path.startsWith('/api/stream'))?.path).toContain('channel=deploys');
    controller.abort();
    await one.done;

    controller = new AbortController();
    const many = collect({ channels: ['deploys', seed.general.id] });
    await eventually(() => many.opens() === 1, 'the second stream to open');
    await post('secret', 'not in the set');
    const g = await post('general', 'g');
    const x = await post('deploys', 'x');
    await eventually(() => many.created().includes(x), 'the last event');
    expect(many.created()).toEqual([g, x]);
    expect(d1).toBeTruthy();
  });

  it('ends with a typed error when the token is refused', async () => {
    const bad = new AlertbridgeApi({ baseUrl: proxy.url, token: 'ab_' + '1'.repeat(48) });
    const it = bad.stream({ signal: controller.signal });
    await expect(it.next()).rejects.toMatchObject({ status: 401 });
  });
});
