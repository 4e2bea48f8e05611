/**
 * The fake Discord used by the Discord tests and the bench: `import { FakeDiscord } from '../helpers/fake-discord/index.js'`.
 *
 *   fake-discord.ts  FakeDiscord: the state model (clock, snowflakes, guilds, channels, members, messages) and the test-facing API
 *   rest.ts          REST under /api/v10: token check, recording, injected failures, routes, message paging
 *   gateway.ts       WebSocket gateway: connections, sessions, identify / resume / member requests, dispatches
 *   cdn.ts           CDN server for attachment bytes
 *   messages.ts      message payload details: webhook authors, attachments, mentions, replies, content-intent view
 *   payloads.ts      builders of Discord API v10 payloads, snowflakes, permission and intent bits
 *   types.ts         public data types;  http.ts  small shared helpers
 */
export { FakeDiscord } from './fake-discord.js';
export type { FakeCommunity, ThreadInit } from './community.js';
export * from './payloads.js';
export type * from './types.js';
