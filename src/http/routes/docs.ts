import type { OpenAPIHono } from '@hono/zod-openapi';
import { TOKEN_SECRET_HEX_CHARS } from '../../domain/tokens.js';
import { escapeHtml } from '../../lib/html.js';
import type { AppEnv } from '../env.js';
import { AUTH_MESSAGES, PROBLEM_TYPES, problemTypeUrl } from '../problems.js';

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:920px;margin:2rem auto;padding:0 1rem;color:#1f2328}
code,pre{font:13px ui-monospace,monospace;background:#f6f8fa;border-radius:4px}pre{padding:.75rem;overflow:auto}
h2{border-bottom:1px solid #d0d7de;padding-bottom:.3rem;margin-top:2.5rem}.m{display:inline-block;min-width:4.5rem;font-weight:700}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
</style></head><body>${body}</body></html>`;

/**
 * The API description (generated from the zod schemas the routes validate
 * with), a readable page of it that needs no CDN, and a page per problem type.
 */
export function registerDocs(app: OpenAPIHono<AppEnv>, publicUrl: string) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: `An API token: \`<prefix>_\` followed by ${TOKEN_SECRET_HEX_CHARS} hexadecimal characters.`,
  });

  const documentConfig = {
    openapi: '3.1.0',
    info: {
      title: 'Alertbridge API',
      version: '1',
      description: 'Webhook ingest and the authenticated read API. Errors are RFC 9457 problem documents.',
    },
    servers: [{ url: publicUrl }],
  };

  // Built on first use, when every route is registered, and kept: it cannot change while the process runs.
  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  const openApi = () => (document ??= app.getOpenAPI31Document(documentConfig));

  app.get('/openapi.json', (c) => c.json(openApi()));

  app.get('/docs', (c) => {
    const doc = openApi() as unknown as {
      paths: Record<string, Record<string, { summary?: string; description?: string; parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[]; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { description: string }> }>>;
      components?: { schemas?: Record<string, unknown> };
    };
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => {
        const params = (op.parameters ?? [])
          .map((p) => `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : ''}</td><td>${escapeHtml(p.description ?? '')} <code>${escapeHtml(JSON.stringify(p.schema ?? {}))}</code></td></tr>`)
          .join('');
        const body = op.requestBody
          ? Object.entries(op.requestBody.content)
              .map(([type, { schema }]) => `<p>Body (<code>${escapeHtml(type)}</code>):</p><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre>`)
              .join('')
          : '';
        const responses = Object.entries(op.responses)
          .map(([status, r]) => `<li><b>${escapeHtml(status)}</b> ${escapeHtml(r.description)}</li>`)
          .join('');
        return `<h2><span class="m">${escapeHtml(method.toUpperCase())}</span><code>${escapeHtml(path)}</code></h2>
<p>${escapeHtml(op.summary ?? '')}</p>${op.description ? `<p>${escapeHtml(op.description)}</p>` : ''}
${params ? `<table><tr><th>name</th><th>in</th><th>required</th><th>notes</th></tr>${params}</table>` : ''}${body}<ul>${responses}</ul>`;
      }),
    );
    const schemas = Object.entries(doc.components?.schemas ?? {})
      .map(([name, s]) => `<h3 id="schema-${escapeHtml(name)}">${escapeHtml(name)}</h3><pre>${escapeHtml(JSON.stringify(s, null, 2))}</pre>`)
      .join('');
    return c.html(
      page(
        'Alertbridge API',
        `<h1>Alertbridge API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Error types: <a href="/problems">/problems</a>.</p>${ops.join('')}<h2>Schemas</h2>${schemas}`,
      ),
    );
  });

  app.get('/problems', (c) => {
    const items = [
      ...Object.entries(PROBLEM_TYPES).map(([name, t]) => `<li><a href="/problems/${name}"><code>${name}</code></a> (${t.status}) ${escapeHtml(t.title)}</li>`),
      ...Object.keys(AUTH_MESSAGES).map((name) => `<li><a href="/problems/${name}"><code>${name}</code></a> (401)</li>`),
    ];
    return c.html(page('Problem types', `<h1>Problem types</h1><ul>${items.join('')}</ul>`));
  });

  app.get('/problems/:name', (c) => {
    const name = c.req.param('name');
    // Own keys only: "constructor" or "__proto__" are not problem types.
    const t = Object.hasOwn(PROBLEM_TYPES, name) ? PROBLEM_TYPES[name as keyof typeof PROBLEM_TYPES] : undefined;
    if (t) {
      return c.html(
        page(t.title, `<h1>${escapeHtml(t.title)}</h1><p>HTTP status <b>${t.status}</b>, type <code>${escapeHtml(problemTypeUrl(publicUrl, name))}</code></p><p>${escapeHtml(t.description)}</p><p><a href="/problems">All problem types</a></p>`),
      );
    }
    const auth = Object.hasOwn(AUTH_MESSAGES, name) ? AUTH_MESSAGES[name as keyof typeof AUTH_MESSAGES] : undefined;
    if (auth) {
      return c.html(
        page(`401 ${name}`, `<h1>Unauthorized: <code>${escapeHtml(name)}</code></h1><p>HTTP status <b>401</b>.</p><p>${escapeHtml(auth)}</p><p><a href="/problems">All problem types</a></p>`),
      );
    }
    return c.notFound();
  });
}
