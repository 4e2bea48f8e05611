import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Harness as Harness } from '../helpers/harness.js';
import { SseClient } from '../helpers/sse-client.js';
import { closeStreamServer, openStreamServer, type StreamServer } from '../helpers/stream-server.js';
import { eventually } from '../helpers/poll.js';

/**
 * A stream with nothing to deliver is never woken by the change log, so losing
 * access must be noticed by the periodic re-check alone: nothing is posted here.
 */
let h: Harness;
let seed: StreamServer['seed'];
let server: StreamServer['server'];
const clients: SseClient[] = [];
const POLL_MS = 100;

beforeEach(async () => ({ h, seed, server } = await openStreamServer({ pollIntervalMs: POLL_MS, heartbeatMs: 50 })));
afterEach(() => closeStreamServer({ h, seed, server }, clients));

async function connect(token: string): Promise<SseClient> {
  const c = await SseClient.open(`${server.url}/api/stream`, { token });
  clients.push(c);
  expect(c.status).toBe(200);
  // Connected and idle: the heartbeat proves the stream is open.
  await c.until((x) => x.comments.includes('heartbeat'), 'a heartbeat');
  return c;
}

async function liveSizeBecomes(n: number, timeoutMs = 10 * POLL_MS): Promise<void> {
  await eventually(() => h.services.live.size === n, `${n} open streams`, { timeoutMs, seen: () => h.services.live.size });
  expect(h.services.live.size).toBe(n);
}

describe('GET /api/stream closes idle streams that lost access', () => {
  it('a revoked token has its idle stream closed within a few poll intervals, then gets a 401', async () => {
    const tok = await h.services.accounts.createToken(seed.ws.id, seed.member.id, 'stream');
    const revoked = await connect(tok.token);
    const other = await connect(seed.memberToken); // same user, another token: stays open
    expect(h.services.live.size).toBe(2);

    await h.services.accounts.revokeToken(tok.id);
    await revoked.until((c) => c.ended, 'the stream to end', 10 * POLL_MS);
    await liveSizeBecomes(1);
    expect(revoked.events).toHaveLength(0);
    expect(other.ended).toBe(false);

    const again = await fetch(`${server.url}/api/stream`, { headers: { authorization: `Bearer ${tok.token}` } });
    expect(again.status).toBe(401);
  });

  it('a user removed from the workspace has the idle stream closed within a few poll intervals', async () => {
    const member = await connect(seed.memberToken);
    const owner = await connect(seed.ownerToken);
    expect(h.services.live.size).toBe(2);

    await h.services.accounts.removeMember(seed.ws.id, seed.member.id);
    await member.until((c) => c.ended, 'the stream to end', 10 * POLL_MS);
    await liveSizeBecomes(1);
    expect(owner.ended).toBe(false);

    const again = await fetch(`${server.url}/api/stream`, { headers: { authorization: `Bearer ${seed.memberToken}` } });
    expect(again.status).toBe(401);
  });
});
