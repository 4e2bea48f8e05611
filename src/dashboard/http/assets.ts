import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { compressStatic, negotiate, type Encoding } from './compression.js';
import { minifyCss, minifyJs } from './minify.js';

interface Asset {
  body: Buffer;
  /** Compressed copies, made on first request. */
  encoded: Partial<Record<Encoding, Buffer>>;
  type: string;
  /** The versioned URL path: the content hash is in the name, so it can be cached forever. */
  url: string;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/** What every page loads (site) and what the feed and search add (feed), in the order they run. */
const BUNDLES = {
  'site.css': ['app.css', 'admin.css', 'routes.css'],
  'site.js': ['app.js', 'confirm.js'],
  'feed-bundle.css': ['alert-card.css', 'feed.css'],
  'feed-bundle.js': ['feed.js', 'feed-view.js', 'feed-lifecycle.js', 'feed-live.js'],
} as const;

/** Next to this module in src/ and (copied by the build) in dist/. */
const OWN_DIR = fileURLToPath(new URL('../assets/', import.meta.url));

function load(file: string, name: string, own = true): Asset {
  const ext = path.extname(name);
  const source = fs.readFileSync(file);
  // Ours are trimmed (minify.ts); htmx comes minified. The service worker keeps its source (it is read as is by push.tsx).
  const body = !own ? source : ext === '.css' ? Buffer.from(minifyCss(source.toString('utf8'))) : ext === '.js' ? Buffer.from(minifyJs(source.toString('utf8'))) : source;
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
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
    this.add('htmx.js', load(require.resolve('htmx.org/dist/htmx.min.js'), 'htmx.js', false));
    // Files always loaded together travel as one: brotli then shares its context across them (1.7 KB
    // less on the feed's first load than ten files). Each of our scripts is a self-contained function.
    for (const [name, parts] of Object.entries(BUNDLES)) this.bundle(name, parts);
  }

  private bundle(name: string, parts: readonly string[]) {
    const body = Buffer.concat(parts.flatMap((p) => [this.byName.get(p)!.body, Buffer.from('\n')]));
    const ext = path.extname(name);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    this.add(name, { body, encoded: {}, type: TYPES[ext]!, url: `/assets/${path.basename(name, ext)}.${hash}${ext}` });
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
