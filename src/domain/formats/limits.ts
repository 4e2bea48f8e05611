import { PAYLOAD_LIMITS } from '../webhook/payload.js';

/**
 * The webhook payload's limits that the drop-in formats cut to: the payload
 * schema's own (one definition). test/formats/limits.test.ts proves each value
 * is accepted by the webhook schema and one more is refused.
 */
export const FORMAT_LIMITS = PAYLOAD_LIMITS;
