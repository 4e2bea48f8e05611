/**
 * The browser entry point (package.json's `browser` condition and `alertbridge/browser`): fetch
 * only, no Node built-in. Attachments are bytes or Blobs; a file path is refused with a TypeError.
 */
import { sendAlertWith, type SendOptions } from './send.js';
import type { AlertPayload, WebhookAccepted } from './types.js';

export { AlertbridgeApi, type AlertbridgeApiOptions } from './api.js';
export { AlertbridgeError } from './errors.js';
export type { RetryOptions } from './retry.js';
export type { AttachmentInput, AttachmentSource, SendOptions } from './send.js';
export type { StreamEvent, StreamOptions } from './stream.js';
export type * from './types.js';

/** Posts one alert to a webhook URL (see the Node entry's sendAlert; here without file paths). */
export function sendAlert(webhookUrl: string, alert: AlertPayload, options?: SendOptions): Promise<WebhookAccepted> {
  return sendAlertWith(undefined, webhookUrl, alert, options);
}
