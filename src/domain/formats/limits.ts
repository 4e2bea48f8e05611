import { MAX_ATTACHMENTS } from '../../media/formats.js';

/**
 * The webhook payload's limits that the drop-in formats cut to. They mirror
 * the schema in src/domain/webhook/payload.ts, which does not export them on
 * this branch yet (a parallel change exports them as PAYLOAD_LIMITS); once it
 * does, this file should re-export that object instead of restating numbers.
 * test/formats/limits.test.ts proves that every value here is accepted by the
 * webhook schema and one more is refused, so a drift cannot go unnoticed.
 */
export const FORMAT_LIMITS = {
  title: 200,
  message: 5_000,
  linkUrl: 2_000,
  linkText: 100,
  source: 200,
  fieldLabel: 100,
  fieldValue: 1_000,
  fields: 25,
  attachments: MAX_ATTACHMENTS,
  actorText: 200,
  runId: 200,
  steps: 50,
  stepName: 200,
  stepInfo: 1_000,
  workflowError: 10_000,
} as const;
