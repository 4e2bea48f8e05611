/** The fake CDN: serves registered bytes (attachments, avatars) over plain HTTP on its own loopback port. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listen } from './http.js';

export class FakeCdn {
  /** Every CDN request path, in order. */
  readonly requests: string[] = [];
  private readonly files = new Map<string, { bytes: Buffer; contentType: string }>();
  private server: Server | null = null;
  private port = 0;

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.port = await listen(this.server);
  }

  async stop(): Promise<void> {
    if (this.server) await closeServer(this.server);
    this.server = null;
  }

  /** Serve `bytes` at `path`; returns the absolute URL. */
  add(path: string, bytes: Uint8Array | string, contentType: string): string {
    const p = path.startsWith('/') ? path : `/${path}`;
    this.files.set(p, { bytes: Buffer.from(bytes), contentType });
    return `${this.base}${p}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push(path);
    const file = this.files.get(path);
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
    res.end(req.method === 'HEAD' ? undefined : file.bytes);
  }
}
