/**
 * The Node entry point: everything the browser entry has, and attachments from file paths.
 *
 *   import { sendAlert, AlertbridgeApi } from 'alertbridge';
 *   await sendAlert(process.env.ALERTBRIDGE_WEBHOOK_URL!, { title: 'Deploy done', level: 'success' }, { attachments: ['report.png'] });
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { sendAlertWith, type SendOptions } from './send.js';
import type { AlertPayload, WebhookAccepted } from './types.js';

export { AlertbridgeApi, type AlertbridgeApiOptions } from './api.js';
export { AlertbridgeError } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { AttachmentInput, AttachmentSource, SendOptions } from './send.js';
export type { StreamEvent, StreamOptions } from './stream.js';
export type * from './types.js';

/**
 * Posts one alert to a channel's webhook URL and returns the 201 body (`alertId`, destination).
 * One Idempotency-Key per call, reused by its retries (network errors, 429, 5xx); a refusal is
 * thrown as an AlertbridgeError. Attachments: bytes, Blobs or file paths.
 */
export function sendAlert(webhookUrl: string, alert: AlertPayload, options?: SendOptions): Promise<WebhookAccepted> {
  return sendAlertWith(readPath, webhookUrl, alert, options);
}

async function readPath(path: string): Promise<{ blob: Blob; name: string }> {
  return { blob: new Blob([await readFile(path)]), name: basename(path) };
}
