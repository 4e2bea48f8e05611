import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { sendAlertWith } from '../send.js';
import type { AlertPayload } from '../types.js';
import { checkUrl, one, parse, UsageError, webhookFrom, write, type CliIo } from './context.js';

const OPTIONS = {
  level: { type: 'string' },
  emoji: { type: 'string' },
  message: { type: 'string' },
  field: { type: 'string', multiple: true },
  link: { type: 'string' },
  'link-text': { type: 'string' },
  source: { type: 'string' },
  attach: { type: 'string', multiple: true },
  'dedup-key': { type: 'string' },
  resolve: { type: 'boolean' },
  'idempotency-key': { type: 'string' },
} as const;

/** `send TITLE …`: posts one alert and prints its id (the whole answer with --json). */
export async function send(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS);
  const title = one(positionals, 'the TITLE');
  const webhookUrl = webhookFrom(values, io.env);
  if (!webhookUrl) throw new UsageError('the webhook URL is missing: pass --webhook-url or set ALERTBRIDGE_WEBHOOK_URL');
  if (values.resolve && !values['dedup-key']) throw new UsageError('--resolve needs --dedup-key (it resolves the alert of that key)');
  if (values.link) checkUrl(values.link, '--link');
  const alert: AlertPayload = { title };
  if (values.level !== undefined) alert.level = values.level;
  if (values.emoji !== undefined) alert.emoji = values.emoji;
  if (values.message !== undefined) alert.message = values.message === '-' ? await readAll(io.stdin) : values.message;
  if (values.field) alert.fields = values.field.map(fieldOf);
  if (values.link !== undefined) alert.linkUrl = values.link;
  if (values['link-text'] !== undefined) alert.linkText = values['link-text'];
  if (values.source !== undefined) alert.source = values.source;
  if (values['dedup-key'] !== undefined) {
    alert.dedupKey = values['dedup-key'];
    alert.status = values.resolve ? 'resolved' : 'open';
  }
  const attachments = [];
  for (const path of values.attach ?? []) {
    // Read up front so a missing file is a usage error (2), not a refusal.
    const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`--attach ${path}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
    });
    attachments.push({ data: new Blob([bytes]), name: basename(path) });
  }
  const answer = await sendAlertWith(undefined, webhookUrl, alert, { attachments, idempotencyKey: values['idempotency-key'] });
  write(io.stdout, values.json ? JSON.stringify(answer) : answer.alertId);
  return 0;
}

/** `label=value`: the value may hold more `=`; a value of true/false/a number stays text (the API returns text anyway). */
function fieldOf(spec: string): { label: string; value: string } {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--field ${spec}: expected label=value`);
  return { label: spec.slice(0, eq), value: spec.slice(eq + 1) };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8').replace(/\n$/, '');
}
