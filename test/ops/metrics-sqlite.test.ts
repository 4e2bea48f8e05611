import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, seedWorkspace, type Harness } from '../helpers/harness.js';

// SQLite only: its write batcher commits every write queued in one event-loop turn together (PostgreSQL's batches only what arrives while two are in flight).

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The value of one sample line, e.g. `name{a="b"}`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics on SQLite', () => {
  it('counts three concurrent webhook POSTs in one group commit', async () => {
    h = await startHarness({ engine: 'sqlite', env: { METRICS: '1' } });
    const seed = await seedWorkspace(h.services);
    const answers = await Promise.all([1, 2, 3].map((i) => h!.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: `a${i}` } })));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    const res = await h.call('GET', '/metrics');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'alertbridge_group_commit_batch_size_sum')).toBe(3);
    expect(sample(text, 'alertbridge_group_commit_batch_size_bucket{le="2"}')).toBeLessThan(sample(text, 'alertbridge_group_commit_batch_size_count')!);
  });
});
