import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { startBackground } from '../../src/runtime.js';
import { startHarness, type Harness, listen, seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { SseClient } from '../helpers/sse-client.js';
import { png } from '../media/fixtures.js';
import { capturedLogger } from './log-capture.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const METRICS_TOKEN = 'mt_0123456789abcdef0123456789abcdef';

async function setup(env: Record<string, string>, clock?: ManualClock) {
  const log = capturedLogger('trace');
  const h: Harness = await startHarness({ env, overrides: { logger: log.logger, ...(clock ? { clock } : {}) } });
  cleanup.push(() => h.close());
  return { h, seed: await seedWorkspace(h.services), lines: log.lines };
}

/** The value of one sample line, e.g. `name{a="b"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(h: Harness, token?: string): Promise<string> {
  const res = await h.call('GET', '/metrics', token ? { token } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe('GET /metrics', () => {
  it('does not exist unless METRICS=1 (the ordinary 404 problem)', async () => {
    const { h } = await setup({});
    const res = await h.call('GET', '/metrics');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { type: string }).type).toBe('http://alertbridge.test/problems/not-found');
  });

  it('with METRICS_TOKEN: 401 without or with a wrong Bearer token, 200 with it; the token is in no log line and not in the output', async () => {
    const { h, lines } = await setup({ METRICS: '1', METRICS_TOKEN });
    expect((await h.call('GET', '/metrics')).status).toBe(401);
    const wrong = await h.call('GET', '/metrics', { token: METRICS_TOKEN.slice(0, -1) + '0' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="alertbridge-metrics"');
    expect((await h.call('GET', '/metrics', { headers: { authorization: METRICS_TOKEN } })).status).toBe(401);
    const text = await scrape(h, METRICS_TOKEN);
    expect(text).not.toContain(METRICS_TOKEN);
    expect(lines.length).toBeGreaterThan(0); // trace level: every request was logged
    for (const line of lines) expect(line).not.toContain(METRICS_TOKEN);
    // Nor does the config object, should anything log it.
    h.services.logger.info({ config: h.config }, 'config dump');
    expect(lines.at(-1)).not.toContain(METRICS_TOKEN);
    expect(lines.at(-1)).toContain('"metricsToken":"[redacted]"');
  });

  it('counts webhook outcomes by reason, webhook and read-API latency, group-commit batch sizes, media bytes and default process metrics', async () => {
    const { h, seed } = await setup({ METRICS: '1' });
    const hook = `/api/webhook/${seed.general.webhookToken}`;
    await Promise.all([1, 2, 3].map((i) => h.call('POST', hook, { json: { title: `a${i}` } })));
    const picture = png();
    await h.call('POST', hook, { json: { title: 'pic', attachments: [{ data: picture.toString('base64'), type: 'image' }] } });
    for (let i = 0; i < 2; i++) await h.call('POST', hook, { json: { title: 'keyed' }, headers: { 'idempotency-key': 'k1' } });
    await h.call('POST', hook, { json: { level: 'info' } }); // no title
    await h.call('POST', '/api/webhook/whk_unknown', { json: { title: 'x' } });
    expect((await h.call('GET', '/api/channels', { token: seed.ownerToken })).status).toBe(200);
    expect((await h.call('GET', '/api/channels/general/alerts?limit=2', { token: seed.ownerToken })).status).toBe(200);
    expect((await h.call('GET', '/api/channels')).status).toBe(401);

    const text = await scrape(h);
    expect(sample(text, 'alertbridge_webhook_requests_total{outcome="accepted",reason="stored"}')).toBe(5);
    expect(sample(text, 'alertbridge_webhook_requests_total{outcome="accepted",reason="replayed"}')).toBe(1);
    expect(sample(text, 'alertbridge_webhook_requests_total{outcome="refused",reason="invalid-payload"}')).toBe(1);
    expect(sample(text, 'alertbridge_webhook_requests_total{outcome="refused",reason="unknown-token"}')).toBe(1);
    expect(sample(text, 'alertbridge_webhook_request_duration_seconds_count{outcome="accepted"}')).toBe(6);
    expect(sample(text, 'alertbridge_read_api_request_duration_seconds_count{method="GET",route="/api/channels",status="200"}')).toBe(1);
    expect(sample(text, 'alertbridge_read_api_request_duration_seconds_count{method="GET",route="/api/channels/:channel/alerts",status="200"}')).toBe(1);
    // Five alerts were stored in all, each by one group commit (metrics-sqlite.test.ts: concurrent POSTs sharing one).
    expect(sample(text, 'alertbridge_group_commit_batch_size_sum')).toBe(5);
    expect(sample(text, 'alertbridge_group_commit_batch_size_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'alertbridge_group_commit_failures_total')).toBe(0);
    expect(sample(text, 'alertbridge_media_bytes')).toBe(picture.byteLength);
    expect(sample(text, 'alertbridge_storage_degraded')).toBe(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
    // Not configured: no Discord series at all.
    expect(text).not.toContain('alertbridge_discord_');
  });

  it('reports the outbox backlog from the database at scrape time (stale after 5 minutes due)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const { h, seed } = await setup({ METRICS: '1' }, clock);
    for (let i = 0; i < 3; i++) expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: `n${i}` } })).status).toBe(201);
    let text = await scrape(h);
    expect(sample(text, 'alertbridge_outbox_pending_jobs')).toBe(3); // no worker runs in this test
    expect(sample(text, 'alertbridge_outbox_stale_jobs')).toBe(0);
    clock.advance(6 * 60_000);
    text = await scrape(h);
    expect(sample(text, 'alertbridge_outbox_stale_jobs')).toBe(3);
    expect(sample(text, 'alertbridge_outbox_oldest_due_seconds')).toBe(360);
  });

  it('counts SSE clients and e-mail delivery outcomes (the worker started as runtime.ts starts it)', async () => {
    const sink = await SmtpSink.start();
    cleanup.push(() => sink.close());
    const { h, seed } = await setup({ METRICS: '1', SMTP_URL: sink.url });
    const runtime = await startBackground(h.services);
    cleanup.push(() => runtime.stop());
    const server = await listen(h.app.fetch);
    cleanup.push(() => server.close());

    const sse = await SseClient.open(`${server.url}/api/stream`, { token: seed.ownerToken });
    await sse.until((c) => c.retry !== undefined, 'stream open');
    expect(sample(await scrape(h), 'alertbridge_sse_clients')).toBe(1);

    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'mail me', level: 'error' } })).status).toBe(201);
    await sink.waitFor(2); // owner and member
    await expect.poll(async () => sample(await scrape(h), 'alertbridge_notification_deliveries_total{outcome="sent"}')).toBe(2);
    expect(sample(await scrape(h), 'alertbridge_notification_deliveries_total{outcome="failed"}')).toBe(0);
    // Web Push outcomes are counted apart (no subscription here: nothing pushed, every outcome present at 0).
    for (const outcome of ['sent', 'retry', 'failed', 'gone']) expect(sample(await scrape(h), `alertbridge_push_deliveries_total{outcome="${outcome}"}`)).toBe(0);

    sse.close();
    await expect.poll(async () => sample(await scrape(h), 'alertbridge_sse_clients')).toBe(0);
  });
});
