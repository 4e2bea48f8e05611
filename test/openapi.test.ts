import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_FAILURE_REASONS } from '../src/domain/errors.js';
import { IDEMPOTENCY_KEY_MAX_CHARS, IDEMPOTENCY_WINDOW_HOURS } from '../src/domain/idempotency.js';
import { TOKEN_SECRET_HEX_CHARS } from '../src/domain/tokens.js';
import { EMOJI_MAX_CHARS } from '../src/domain/webhook/emoji.js';
import { PAYLOAD_LIMITS } from '../src/domain/webhook/payload.js';
import { LIST_PAGE_SIZE } from '../src/http/schemas.js';
import { SUPPORTED_FORMATS_TEXT } from '../src/media/formats.js';
import { formatBytes } from '../src/lib/bytes.js';
import { MAX_ATTACHMENTS, MEDIA_KINDS, MEDIA_LIMITS } from '../src/domain/media.js';
import { DEFAULT_LIVE_OPTIONS, EVENT_RETENTION_DAYS } from '../src/notify/live-stream.js';
import { bodyOf } from './helpers/bodies.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { isDashboardPath } from '../src/dashboard/index.js';

let h: Harness;
afterEach(async () => h?.close());

/** Hono path `/api/alerts/:id` → OpenAPI `/api/alerts/{id}`. */
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');
const DOC_PAGES = new Set(['/openapi.json', '/docs', '/problems', '/problems/{name}']);

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    h = await startHarness({ engine: 'sqlite' });
    const res = await h.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = await bodyOf.openApi(res);
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Built from the same zod schemas the routes validate with.
    const webhookBody = doc.paths['/api/webhook/{token}']?.post?.requestBody?.content['application/json']?.schema;
    expect(JSON.stringify(webhookBody)).toContain('title');
    const limit = doc.paths['/api/channels/{channel}/alerts']?.get?.parameters?.find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ minimum: 1, maximum: 100, default: 50 });
  });

  it('describes what a webhook route sends, in its webhooks section', async () => {
    h = await startHarness({ engine: 'sqlite' });
    const doc = (await (await h.call('GET', '/openapi.json')).json()) as {
      webhooks: Record<string, { post: { parameters: { name: string; in: string }[]; requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
      components: { schemas: Record<string, { required: string[]; properties: Record<string, { enum?: string[] }> }> };
    };
    const event = doc.webhooks['alert-route-event']!.post;
    expect(event.parameters.map((p) => `${p.in} ${p.name}`)).toEqual(['header webhook-id', 'header webhook-timestamp', 'header webhook-signature']);
    expect(event.requestBody.content['application/json']!.schema.$ref).toBe('#/components/schemas/RouteWebhookEvent');
    const body = doc.components.schemas.RouteWebhookEvent!;
    expect(body.properties.event!.enum).toEqual(['alert.opened', 'alert.updated', 'alert.acknowledged', 'alert.resolved']);
    expect(body.required).toEqual(expect.arrayContaining(['id', 'title', 'level', 'status', 'event', 'channel']));
    expect(body.properties).not.toHaveProperty('isRead');
  });

  it('describes every route the app serves', async () => {
    h = await startHarness({ engine: 'sqlite' });
    const doc = await bodyOf.openApi(await h.call('GET', '/openapi.json'));
    const served = h.app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method.toLowerCase(), path: toOpenApiPath(r.path) }))
      // The dashboard's HTML pages are for browsers, not part of the API contract.
      .filter((r) => !DOC_PAGES.has(r.path) && !isDashboardPath(r.path));
    // The app's own route table, not a list kept by hand: a route added without OpenAPI fails here.
    for (const expected of ['post /api/webhook/{token}', 'get /api/stream', 'post /api/alerts/mark-all-read', 'get /api/search', 'get /media/{key}']) {
      expect(served.map((r) => `${r.method} ${r.path}`)).toContain(expected);
    }
    const missing = served.filter((r) => !doc.paths[r.path]?.[r.method === 'head' ? 'get' : r.method]);
    expect(missing).toEqual([]);
  });

  it('renders a readable page at /docs', async () => {
    h = await startHarness({ engine: 'sqlite' });
    const res = await h.call('GET', '/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('/api/channels/{channel}/alerts');
    expect(html).toContain('/api/webhook/{token}');
  });
});

describe('limits quoted from their one definition', () => {
  const page = async (name: string) => {
    const res = await h.call('GET', `/problems/${name}`);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('problem pages quote the media, idempotency and token limits', async () => {
    h = await startHarness({ engine: 'sqlite' });
    const tooLarge = await page('attachment-too-large');
    for (const kind of MEDIA_KINDS) expect(tooLarge).toContain(formatBytes(MEDIA_LIMITS[kind]));
    expect(await page('too-many-attachments')).toContain(`at most ${MAX_ATTACHMENTS} attachments`);
    expect(await page('unsupported-attachment-type')).toContain(SUPPORTED_FORMATS_TEXT);
    expect(await page('invalid-idempotency-key')).toContain(`1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable`);
    expect(await page('idempotency-key-reused')).toContain(`last ${IDEMPOTENCY_WINDOW_HOURS} hours`);
    expect(await page('invalid_token_format')).toContain(`exactly ${TOKEN_SECRET_HEX_CHARS} hexadecimal`);
    // Every 401 reason has a page and is listed.
    const index = await (await h.call('GET', '/problems')).text();
    for (const reason of AUTH_FAILURE_REASONS) {
      expect(index).toContain(`/problems/${reason}`);
      await page(reason);
    }
  });

  it('the OpenAPI document quotes the payload, page size and 401 reason definitions', async () => {
    h = await startHarness({ engine: 'sqlite' });
    const doc = await bodyOf.openApi(await h.call('GET', '/openapi.json'));
    const webhook = doc.paths['/api/webhook/{token}']?.post;
    const p = webhook?.requestBody?.content['application/json']?.schema?.properties ?? {};
    expect(p.title?.maxLength).toBe(PAYLOAD_LIMITS.title);
    expect(p.message?.maxLength).toBe(PAYLOAD_LIMITS.message);
    expect(p.linkUrl?.maxLength).toBe(PAYLOAD_LIMITS.linkUrl);
    expect(p.linkText?.maxLength).toBe(PAYLOAD_LIMITS.linkText);
    expect(p.fields?.maxItems).toBe(PAYLOAD_LIMITS.fields);
    expect(p.fields?.items?.properties?.label?.maxLength).toBe(PAYLOAD_LIMITS.fieldLabel);
    expect(p.attachments?.maxItems).toBe(MAX_ATTACHMENTS);
    expect(p.workflow?.properties?.steps?.maxItems).toBe(PAYLOAD_LIMITS.steps);
    expect(p.emoji?.description).toContain(`At most ${EMOJI_MAX_CHARS} characters`);
    expect(p.metadata?.description).toContain(formatBytes(PAYLOAD_LIMITS.metadataBytes));
    expect(webhook?.description).toContain(`at most ${MAX_ATTACHMENTS} attachments`);
    expect(webhook?.description).toContain(`(${IDEMPOTENCY_WINDOW_HOURS} h)`);
    expect(webhook?.responses['413']?.description).toContain(formatBytes(MEDIA_LIMITS.video));
    const limit = doc.paths['/api/channels/{channel}/alerts']?.get?.parameters?.find((q) => q.name === 'limit');
    expect(limit?.schema).toMatchObject({ minimum: LIST_PAGE_SIZE.min, maximum: LIST_PAGE_SIZE.max, default: LIST_PAGE_SIZE.default });
    expect(doc.components.schemas.AuthFailure?.properties?.reason?.enum).toEqual([...AUTH_FAILURE_REASONS]);
    expect(doc.components.securitySchemes.bearerAuth?.description).toContain(`${TOKEN_SECRET_HEX_CHARS} hexadecimal`);
    const stream = doc.paths['/api/stream']?.get?.description;
    expect(stream).toContain(`pruned after ${EVENT_RETENTION_DAYS} days`);
    expect(stream).toContain(`every ${DEFAULT_LIVE_OPTIONS.heartbeatMs / 1000} s`);
    // The per-user read event (issue 13): its name and payload are part of the contract.
    expect(stream).toMatch(/`read\.updated`[^\n]*\{"channelId": "\.\.\.", "unread": \d+\}/);
  });
});
