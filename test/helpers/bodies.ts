import { z } from '@hono/zod-openapi';
import { WebhookAccepted } from '../../src/http/routes/webhook.js';
import { AlertPage, Channel, Problem, StandardAlert } from '../../src/http/schemas.js';

/**
 * Response bodies read through the contract's own zod schemas: typed for the
 * test, and a body that breaks the documented shape fails the test here.
 */
const StandardAlertWithChannel = StandardAlert.extend({ channelName: z.string(), channelSlug: z.string() });

export const bodyOf = {
  accepted: async (res: Response) => WebhookAccepted.parse(await res.json()),
  /** GET /api/alerts/{id} of a standard (webhook) alert. */
  alert: async (res: Response) => StandardAlertWithChannel.parse(await res.json()),
  page: async (res: Response) => AlertPage.parse(await res.json()),
  channels: async (res: Response) => z.array(Channel).parse(await res.json()),
  problem: async (res: Response) => Problem.parse(await res.json()),
};
