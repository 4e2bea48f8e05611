import type { ServiceOverrides } from '../../src/services.js';
import { startHarness, type Harness, listen, seedWorkspace } from './harness.js';
import type { SseClient } from './sse-client.js';

/** The services (on testEngine()) with a seeded workspace behind a real loopback server, for the /api/stream tests. */
export interface StreamServer {
  h: Harness;
  seed: Awaited<ReturnType<typeof seedWorkspace>>;
  server: Awaited<ReturnType<typeof listen>>;
}

/** Short heartbeat and access re-check intervals keep the stream tests fast. */
export async function openStreamServer(live: NonNullable<ServiceOverrides['live']>): Promise<StreamServer> {
  const h = await startHarness({ overrides: { live } });
  const seed = await seedWorkspace(h.services);
  return { h, seed, server: await listen(h.app.fetch) };
}

/** Closes the test's clients first: an open stream would hold the server's close. */
export async function closeStreamServer(s: StreamServer, clients: SseClient[]): Promise<void> {
  for (const c of clients.splice(0)) c.close();
  await s.server.close();
  await s.h.close();
}
