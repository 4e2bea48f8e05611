import { z } from '@hono/zod-openapi';
import { MarkedAllRead } from '../../src/http/routes/read-api.js';
import { WebhookAccepted } from '../../src/http/routes/webhook.js';
import { AlertPage, AuthFailure, Channel, ChatAlert, Problem, SingleAlert, StandardAlert } from '../../src/http/schemas.js';

/**
 * Response bodies read through the contract's own zod schemas: typed for the
 * test, and a body that breaks the documented shape fails the test here.
 *
 * The body is checked, then returned as it came, not as zod rebuilt it: parsing
 * drops keys the schema does not name, and a test's `toEqual` must still see an
 * extra key the server should not have sent.
 */
function reader<S extends z.ZodType>(schema: S) {
  return async (res: Response): Promise<z.infer<S>> => {
    const raw: unknown = await res.json();
    schema.parse(raw);
    return raw as z.infer<S>;
  };
}

/** A 400 from schema validation: `details` in the spec's shape (src/http/validation.ts). */
const ValidationProblem = Problem.extend({
  details: z.array(z.looseObject({ code: z.string(), message: z.string(), path: z.array(z.union([z.string(), z.number()])) })),
});

const withChannel = { channelName: z.string(), channelSlug: z.string() };
const pageOf = <A extends z.ZodType>(alert: A) => AlertPage.extend({ alerts: z.array(alert) });

export const bodyOf = {
  accepted: reader(WebhookAccepted),
  /** GET/PATCH /api/alerts/{id} of a standard (webhook) alert. */
  alert: reader(StandardAlert.extend(withChannel)),
  /** GET /api/alerts/{id} of either kind. */
  anyAlert: reader(SingleAlert),
  /** A page of a webhook channel: every alert is a standard one. */
  page: reader(pageOf(StandardAlert)),
  /** A page of a chat-connected channel: every alert is a chat message. */
  chatPage: reader(pageOf(ChatAlert)),
  channels: reader(z.array(Channel)),
  markedAllRead: reader(MarkedAllRead),
  problem: reader(Problem),
  invalid: reader(ValidationProblem),
  authFailure: reader(AuthFailure),
};
