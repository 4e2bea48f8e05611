import fs from 'node:fs';
import path from 'node:path';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { z } from 'zod';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import { WebhookPayload } from '../../src/domain/webhook/payload.js';
import { meterCpu } from './cpu-meter.js';

/**
 * The floor the figure describes (shared/notes/performance.md, "group
 * commit" row): Hono, a zod 4 schema of the same payload, ONE narrow INSERT per
 * request through the same group commit, 201 after COMMIT. No outbox, stream,
 * usage or count rows, no idempotency, rate limit or channel lookup.
 * FLOOR_SCHEMA=alertbridge swaps in the service's own payload schema (emoji,
 * actor enrichment, every limit), to show what validation alone costs.
 */
const dir = process.env.DATA_DIR!;
fs.mkdirSync(dir, { recursive: true });
const db = new Database(path.join(dir, 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY, title TEXT NOT NULL, level TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)');
const insert = db.prepare('INSERT INTO alerts (title, level, body, created_at) VALUES (?, ?, ?, ?)');
const batcher = new WriteBatcher(db);
const Payload = z.object({
  title: z.string().min(1).max(200),
  level: z.enum(['info', 'success', 'warning', 'error']).default('info'),
  emoji: z.string().max(64).optional(),
  message: z.string().max(5000).optional(),
  fields: z.array(z.object({ label: z.string().max(100), value: z.union([z.string().max(1000), z.number(), z.boolean()]), inline: z.boolean().default(false) })).max(25).optional(),
  linkUrl: z.string().max(2000).optional(),
  source: z.string().max(200).optional(),
  actor: z.object({ email: z.string().max(320) }).optional(),
});

const schema: z.ZodType<{ title: string; level: string }> = process.env.FLOOR_SCHEMA === 'alertbridge' ? WebhookPayload : Payload;

const app = new Hono();
app.post('/api/webhook/:token', async (c) => {
  const parsed = schema.safeParse(await c.req.json());
  if (!parsed.success) return c.json({ error: 'invalid payload' }, 400);
  const p = parsed.data;
  const id = await batcher.run(() => insert.run(p.title, p.level, JSON.stringify(p), Date.now()).lastInsertRowid);
  return c.json({ success: true, alertId: String(id) }, 201);
});
serve({ fetch: meterCpu(app.fetch, () => `stored ${(db.prepare('SELECT count(*) FROM alerts').pluck().get() as number)} rows; `), port: 0, hostname: '127.0.0.1' }, (info) =>
  process.stdout.write(`LISTENING http://127.0.0.1:${info.port}\n`),
);
