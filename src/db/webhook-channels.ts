/**
 * How many channels each engine's webhook-token cache holds before it starts over
 * (src/db/sqlite/webhook-channels.ts, src/db/pg/webhook-channels.ts).
 */
export const CHANNEL_CACHE_MAX = 10_000;
