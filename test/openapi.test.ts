import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './helpers/harness.js';
import { isDashboardPath } from '../src/dashboard/index.js';

let h: Harness;
afterEach(async () => h?.close());

/** Hono path `/api/alerts/:id` → OpenAPI `/api/alerts/{id}`. */
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');
const DOC_PAGES = new Set(['/openapi.json', '/docs', '/problems', '/problems/{name}']);

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    h = createHarness();
    const res = await h.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Built from the same zod schemas the routes validate with.
    const webhookBody = doc.paths['/api/webhook/{token}'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(webhookBody)).toContain('title');
    const limit = doc.paths['/api/channels/{channel}/alerts'].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 50 });
  });

  it('describes every route the app serves', async () => {
    h = createHarness();
    const doc = (await (await h.call('GET', '/openapi.json')).json()) as any;
    const served = h.app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({ method: r.method.toLowerCase(), path: toOpenApiPath(r.path) }))
      // The dashboard's HTML pages are for browsers, not part of the API contract.
      .filter((r) => !DOC_PAGES.has(r.path) && !isDashboardPath(r.path));
    // The app's own route table, not a list kept by hand: a route added without OpenAPI fails here.
    for (const expected of ['post /api/webhook/{token}', 'get /api/stream', 'post /api/alerts/mark-all-read', 'get /media/{key}']) {
      expect(served.map((r) => `${r.method} ${r.path}`)).toContain(expected);
    }
    const missing = served.filter((r) => !doc.paths[r.path]?.[r.method === 'head' ? 'get' : r.method]);
    expect(missing).toEqual([]);
  });

  it('renders a readable page at /docs', async () => {
    h = createHarness();
    const res = await h.call('GET', '/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('/api/channels/{channel}/alerts');
    expect(html).toContain('/api/webhook/{token}');
  });
});
