import { MAX_ATTACHMENTS } from '../media.js';
import { EMOJI_MAX_CHARS } from './emoji.js';

/**
 * Every limit of the webhook payload, in one place: the schema below enforces
 * them, and the OpenAPI descriptions, problem pages and README quote them from
 * here. Those the spec sets (title, emoji, message, linkUrl, linkText, field
 * label and value) carry its numbers; the rest are decided here.
 */
export const PAYLOAD_LIMITS = {
  title: 200,
  emoji: EMOJI_MAX_CHARS,
  message: 5_000,
  linkUrl: 2_000,
  linkText: 100,
  source: 200,
  fieldLabel: 100,
  fieldValue: 1_000,
  fields: 25,
  attachments: MAX_ATTACHMENTS, // shared with the multipart count in src/media
  attachmentName: 200,
  metadataBytes: 16 * 1024,
  actorText: 200,
  email: 320,
  runId: 200,
  dedupKey: 255,
  steps: 50,
  stepName: 200,
  stepInfo: 1_000,
  workflowError: 10_000,
} as const;
