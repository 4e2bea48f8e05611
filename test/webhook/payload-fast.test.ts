import { describe, expect, it } from 'vitest';
import { parseCommonPayload, WebhookPayload } from '../../src/domain/webhook/payload.js';

/**
 * The webhook's zod-free check of common bodies (src/domain/webhook/payload-fast.ts)
 * against the schema it stands in for: on thousands of bodies built from valid
 * and invalid values of every member, it must answer exactly what the schema
 * answers (same alert, same member order) or leave the body to the schema; and
 * it must take every valid body without attachments or a workflow, so the
 * route really skips zod for them.
 */
const long = (n: number, ch = 'a') => ch.repeat(n);
const actors: unknown[] = [
  undefined, 'jane@acme.com', 'Jane', '', '   ', ' jane.doe@acme.com ', long(200), long(201), { email: 'jane.doe@acme.com' }, { email: 'bad' },
  { email: 'a@b.c' }, { email: "o'neil@acme.io" }, { email: `${long(320)}@acme.io` }, {}, { name: '' }, { name: 'Al', initials: 'XX' }, { id: 5 }, { id: 'u-1' },
  { id: '' }, { id: true }, { avatarUrl: 'https://cdn.acme.io/a.png' }, { url: 'ftp://x.io' }, { url: 'http://x.io' }, { unknown: 1 }, null, 5, [],
  { name: 'Jane', email: 'jane@gmail.com', plan: 'pro', company: 'Acme', location: 'Berlin' }, { plan: long(201) }, { company: 7 },
];
const pools: Record<string, unknown[]> = {
  title: ['Deploy finished', 'x', ' t ', '', '   ', long(200), long(201), 5, null, undefined, '🚀'],
  level: [undefined, 'info', 'ERROR', 'Warning', 'success', 'fatal', '', 3, null],
  emoji: [undefined, 'rocket', ':rocket:', 'ROCKET', '🚀', '🚀 deploy', long(11, 'x'), ':rotating_light:', '', 7, null, 'notanemoji', '🔥🔥', ':megaphone:'],
  message: [undefined, 'm', long(5000), long(5001), null, 1, ''],
  fields: [
    undefined, [], [{ label: 'a', value: 'b' }], [{ name: 'n', value: 1, inline: true }], [{ label: '', value: 'x' }], [{ value: 'x' }],
    [{ label: 'a', value: long(1000) }], [{ label: 'a', value: long(1001) }], [{ label: 'a', value: null }], [{ label: 'a', value: true, inline: 'yes' }],
    Array.from({ length: 25 }, (_, i) => ({ label: `f${i}`, value: i })), Array.from({ length: 26 }, (_, i) => ({ label: `f${i}`, value: i })),
    'not an array', [null], [[1]], [{ label: 'a', name: '', value: 1 }], [{ label: 'a', name: 'b', value: false, extra: 2 }], [{ label: long(101), value: 1 }],
    [{ label: 'a', value: 1.5, inline: false }],
  ],
  linkUrl: [undefined, 'https://ci.example.com/runs/4242', 'http://x', 'ftp://x', 'not a url', `https://x.io/${long(2000)}`, null, 'HTTPS://EXAMPLE.COM', 'javascript:alert(1)', ''],
  linkText: [undefined, 'Open', '', long(100), long(101), null],
  source: [undefined, 'github-actions', long(200), long(201), 0],
  metadata: [undefined, {}, { a: 1, b: [1, 2] }, [], null, 'x', { big: long(17_000) }, JSON.parse('{"__proto__":{"polluted":true}}')],
  actor: actors,
  user: actors,
  attachments: [undefined, undefined, undefined, [], [{ url: 'https://x.io/a.png' }]],
  workflow: [undefined, undefined, undefined, { runId: 'r', state: 'running', steps: [] }],
  dedupKey: ['disk:db-1', undefined, 'k', '', 'x'.repeat(256), 42, null],
  status: [undefined, 'resolved', 'open', 'closed', 'RESOLVED', 1, null, { a: 1 }],
  extra: [undefined, 'ignored', { nested: true }],
};

/** Mostly valid values (the first three of each pool are valid), often one odd one out. */
function body(rand: () => number): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, pool] of Object.entries(pools)) {
    const pickFrom = rand() < 0.9 ? 3 : pool.length;
    const v = pool[Math.floor(rand() * pickFrom)];
    if (v !== undefined) out[key] = v;
  }
  // Through JSON, as the route receives it.
  return JSON.parse(JSON.stringify(out));
}

describe('the webhook body check without zod', () => {
  it('draws a value for every member of the schema', () => {
    expect(Object.keys(pools).filter((k) => k !== 'extra').sort()).toEqual(Object.keys(WebhookPayload.in.shape).sort());
  });

  it('answers what the schema answers, or leaves the body to it, and covers every valid body without attachments or workflow', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    let fast = 0;
    let refused = 0;
    for (let i = 0; i < 10_000; i++) {
      const input = body(rand);
      const mine = parseCommonPayload(input);
      const theirs = WebhookPayload.safeParse(input);
      if (!theirs.success) refused++;
      if (mine) {
        fast++;
        expect(theirs.success, JSON.stringify(input)).toBe(true);
        expect(JSON.stringify(mine), JSON.stringify(input)).toBe(JSON.stringify(theirs.data));
        expect(mine).toEqual(theirs.data);
      } else if (theirs.success) {
        const b = input as Record<string, unknown>;
        expect(b.attachments !== undefined || b.workflow !== undefined, `not covered: ${JSON.stringify(input)}`).toBe(true);
      }
    }
    // Both kinds were exercised in quantity.
    expect(fast).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('takes the bench body and a bare title', () => {
    const bench = {
      title: 'Deploy finished: api v1.42.0', level: 'success', emoji: ':rocket:', message: 'All checks passed.',
      fields: [{ label: 'service', value: 'api', inline: true }, { label: 'duration', value: 187 }],
      linkUrl: 'https://ci.example.com/runs/4242', source: 'github-actions', actor: { email: 'jane.doe@acme.com' },
    };
    for (const input of [bench, { title: 'x' }]) expect(parseCommonPayload(input)).toEqual(WebhookPayload.parse(input));
  });
});
