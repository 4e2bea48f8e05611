import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { compressStatic, negotiate, type Encoding } from './compression.js';

interface Asset {
  body: Buffer;
  /** Compressed copies, made on first request. */
  encoded: Partial<Record<Encoding, Buffer>>;
  type: string;
  /** The versioned URL path: the content hash is in the name, so it can be cached forever. */
  url: string;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** Next to this module in src/ and (copied by the build) in dist/. */
const OWN_DIR = fileURLToPath(new URL('../assets/', import.meta.url));

function load(file: string, name: string): Asset {
  const body = fs.readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const ext = path.extname(name);
  return { body, encoded: {}, type: TYPES[ext] ?? 'application/octet-stream', url: `/assets/${path.basename(name, ext)}.${hash}${ext}` };
}

/**
 * The dashboard's static files: our stylesheet and scripts, and htmx served
 * from its own npm package (no CDN: the CSP allows only 'self', and a
 * self-hosted service must work without the internet). Read once at start.
 */
export class Assets {
  private readonly byName = new Map<string, Asset>();
  private readonly byUrl = new Map<string, Asset>();

  constructor() {
    for (const name of fs.readdirSync(OWN_DIR)) this.add(name, load(path.join(OWN_DIR, name), name));
    const require = createRequire(import.meta.url);
    // The alert card's stylesheet lives with its components (the e-mail inlines the same look).
    this.add('alert-card.css', load(fileURLToPath(new URL('../../alert-card/alert-card.css', import.meta.url)), 'alert-card.css'));
    this.add('htmx.js', load(require.resolve('htmx.org/dist/htmx.min.js'), 'htmx.js'));
  }

  private add(name: string, a: Asset) {
    this.byName.set(name, a);
    this.byUrl.set(a.url, a);
  }

  url(name: string): string {
    const a = this.byName.get(name);
    if (!a) throw new Error(`no dashboard asset ${name}`);
    return a.url;
  }

  routes(): Hono {
    const r = new Hono();
    r.get('/assets/:file', (c) => {
      const a = this.byUrl.get(new URL(c.req.url).pathname);
      if (!a) return c.notFound();
      const headers: Record<string, string> = { 'content-type': a.type, 'cache-control': 'public, max-age=31536000, immutable', vary: 'Accept-Encoding' };
      // Brotli or gzip when the browser takes it (htmx is 51 KB as it is, 14 KB in brotli).
      const encoding = negotiate(c.req.header('accept-encoding'));
      if (!encoding) return c.body(new Uint8Array(a.body), 200, headers);
      const packed = (a.encoded[encoding] ??= compressStatic(a.body, encoding));
      return c.body(new Uint8Array(packed), 200, { ...headers, 'content-encoding': encoding });
    });
    return r;
  }
}
