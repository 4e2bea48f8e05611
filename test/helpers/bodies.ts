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
    const checked = schema.safeParse(raw);
    if (!checked.success) {
      throw new Error(`a ${res.status} body that breaks its schema:\n${z.prettifyError(checked.error)}\nbody: ${JSON.stringify(raw).slice(0, 2000)}`);
    }
    return raw as z.infer<S>;
  };
}

/** A 400 from schema validation: `details` in the spec's shape (src/http/validation.ts). */
const ValidationProblem = Problem.extend({
  details: z.array(z.looseObject({ code: z.string(), message: z.string(), path: z.array(z.union([z.string(), z.number()])) })),
});

/** A problem as a request's error handler sends it: with the request's id, and open to members a type adds. */
const SentProblem = Problem.extend({ requestId: z.string() }).loose();

/**
 * /healthz and /readyz, as src/http/routes/operations.ts documents them (its
 * schemas are not exported; the OpenAPI test checks the document against the app).
 */
const Health = z.object({ status: z.enum(['ok', 'degraded']), reasons: z.array(z.string()).optional() });
const Readiness = z.object({
  status: z.enum(['ready', 'not-ready']),
  checks: z.record(z.string(), z.object({ status: z.enum(['ok', 'warn', 'fail']) }).catchall(z.unknown())),
});

/**
 * The parts of the OpenAPI document the tests read, typed loosely: the
 * document's full validation is @seriousme/openapi-schema-validator's job
 * (test/openapi.test.ts); this is what a test may index without `any`.
 */
export interface OpenApiSchema {
  type?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  maxLength?: number;
  maxItems?: number;
}
export interface OpenApiOperation {
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: OpenApiSchema }[];
  requestBody?: { content: Record<string, { schema?: OpenApiSchema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: OpenApiSchema }> }>;
}
export interface OpenApiDocument {
  [member: string]: unknown;
  openapi: string;
  paths: Record<string, Partial<Record<string, OpenApiOperation>>>;
  components: { schemas: Record<string, OpenApiSchema>; securitySchemes: Record<string, { type: string; scheme?: string; description?: string }> };
}
/** The document's outline, checked before a test indexes into it. */
const OpenApiOutline = z.looseObject({
  openapi: z.string(),
  paths: z.record(z.string(), z.record(z.string(), z.looseObject({ responses: z.record(z.string(), z.looseObject({ description: z.string() })) }))),
  components: z.looseObject({ schemas: z.record(z.string(), z.looseObject({})), securitySchemes: z.record(z.string(), z.looseObject({ type: z.string() })) }),
});
async function openApiDocument(res: Response): Promise<OpenApiDocument> {
  const raw: unknown = await reader(OpenApiOutline)(res);
  return raw as OpenApiDocument;
}

type Accepted = z.infer<typeof WebhookAccepted>;
export type ProblemBody = z.infer<typeof Problem>;
type Without<T, U> = { [K in Exclude<keyof U, keyof T>]?: undefined };
/** What the webhook answered: accepted (2xx) or a problem; `success` tells them apart, `alertId` is there only when accepted. */
export type WebhookAnswer = (Accepted & Without<Accepted, ProblemBody>) | (ProblemBody & Without<ProblemBody, Accepted>);

const readAccepted = reader(WebhookAccepted);
const readProblem = reader(Problem);

/** The answer of a webhook that must have taken the alert: a refusal fails the test here, with its problem. */
export function accepted(answer: WebhookAnswer): Accepted {
  if (answer.success !== true) throw new Error(`the webhook refused the alert: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * Alertmanager's and Grafana's answer: the plain webhook's plus the group's
 * state, as src/http/routes/webhook-groups.ts documents it (its schema is not exported).
 */
const GroupAnswer = WebhookAccepted.extend({
  group: z.object({ status: z.enum(['firing', 'resolved']), created: z.boolean(), repeat: z.boolean() }),
});

/** GitHub's 200 for an event it does not store: the event's name, and why when the run already completed. */
const GithubIgnored = z.object({ ignored: z.string(), reason: z.string().optional() });

/**
 * Discord's `?wait=true` answer: the message object as Discord documents it for
 * webhook messages (src/domain/formats/discord-message.ts builds it).
 */
const snowflakeId = z.string().regex(/^\d+$/);
const DiscordMessage = z.object({
  id: snowflakeId,
  type: z.number().int(),
  content: z.string(),
  channel_id: snowflakeId,
  author: z.object({
    id: snowflakeId,
    username: z.string(),
    avatar: z.string().nullable(),
    discriminator: z.string(),
    public_flags: z.number().int(),
    flags: z.number().int(),
    bot: z.boolean(),
    global_name: z.string().nullable(),
  }),
  attachments: z.array(
    z.object({ id: snowflakeId, filename: z.string(), size: z.number().int(), url: z.string(), proxy_url: z.string(), content_type: z.string() }),
  ),
  embeds: z.array(
    z.object({
      type: z.literal('rich'),
      title: z.string().optional(),
      description: z.string().optional(),
      url: z.string().optional(),
      color: z.number().int().optional(),
      fields: z.array(z.object({ name: z.string(), value: z.string(), inline: z.boolean() })).optional(),
      author: z.object({ name: z.string(), url: z.string().optional(), icon_url: z.string().optional() }).optional(),
      footer: z.object({ text: z.string(), icon_url: z.string().optional() }).optional(),
      image: z.object({ url: z.string() }).optional(),
      thumbnail: z.object({ url: z.string() }).optional(),
    }),
  ),
  mentions: z.array(z.unknown()),
  mention_roles: z.array(z.string()),
  pinned: z.boolean(),
  mention_everyone: z.boolean(),
  tts: z.boolean(),
  timestamp: z.string(),
  edited_timestamp: z.string().nullable(),
  flags: z.number().int(),
  components: z.array(z.unknown()),
  webhook_id: snowflakeId,
});

const withChannel = { channelName: z.string(), channelSlug: z.string() };
const pageOf = <A extends z.ZodType>(alert: A) => AlertPage.extend({ alerts: z.array(alert) });

export const bodyOf = {
  accepted: readAccepted,
  /** Whatever the webhook answered, checked against the schema its status documents. */
  webhookAnswer: async (res: Response): Promise<WebhookAnswer> => (res.ok ? readAccepted(res) : readProblem(res)),
  /** GET/PATCH /api/alerts/{id} of a standard (webhook) alert. */
  alert: reader(StandardAlert.extend(withChannel)),
  /** GET /api/alerts/{id} of either kind. */
  anyAlert: reader(SingleAlert),
  /** A page of a webhook channel: every alert is a standard one. */
  page: reader(pageOf(StandardAlert)),
  /** A page of a chat-connected channel: every alert is a chat message. */
  chatPage: reader(pageOf(ChatAlert)),
  /** GET /api/search: standard alerts and chat messages together. */
  searchPage: reader(AlertPage),
  channels: reader(z.array(Channel)),
  /** Alertmanager's and Grafana's 200: accepted, with the group's state. */
  groupAnswer: reader(GroupAnswer),
  /** GitHub's 200 for an event answered without storing it. */
  githubIgnored: reader(GithubIgnored),
  /** Discord's `?wait=true` message object. */
  discordMessage: reader(DiscordMessage),
  markedAllRead: reader(MarkedAllRead),
  problem: readProblem,
  /** A problem read with its `requestId` and any member its type adds. */
  sentProblem: reader(SentProblem),
  invalid: reader(ValidationProblem),
  authFailure: reader(AuthFailure),
  health: reader(Health),
  readiness: reader(Readiness),
  openApi: openApiDocument,
};

/** The type a reader gives, e.g. `BodyOf<'page'>`. */
export type BodyOf<K extends keyof typeof bodyOf> = Awaited<ReturnType<(typeof bodyOf)[K]>>;
