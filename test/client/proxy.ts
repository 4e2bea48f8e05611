import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A fault the proxy answers instead of the service. */
export interface Fault {
  status: number;
  headers?: Record<string, string>;
  /** Forward the request first and throw the service's answer away (the "committed, answer lost" case). */
  forward?: boolean;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * A tiny HTTP proxy in front of the real service: it forwards every request (streaming the answer,
 * so SSE passes through), answers queued faults instead, and can cut every open connection to
 * simulate a dropped stream. `rewrite` may change a request's headers on the way (a stale Last-Event-ID).
 */
export class FaultyProxy {
  readonly requests: SeenRequest[] = [];
  readonly faults: Fault[] = [];
  rewrite: ((headers: http.IncomingHttpHeaders, path: string) => void) | undefined;
  readonly #sockets = new Set<Socket>();
  private constructor(
    readonly server: http.Server,
    readonly url: string,
    readonly upstream: URL,
  ) {}

  static async start(upstream: string): Promise<FaultyProxy> {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const proxy = new FaultyProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, new URL(upstream));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void proxy.handle(req, res));
    server.on('connection', (s) => {
      proxy.#sockets.add(s);
      s.on('close', () => proxy.#sockets.delete(s));
    });
    return proxy;
  }

  /** Cuts every open client connection (an open SSE stream included) mid-answer. */
  dropConnections(): void {
    for (const s of this.#sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise((r) => this.server.close(r));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const headers = { ...req.headers, host: this.upstream.host };
    this.rewrite?.(headers, req.url!);
    this.requests.push({ method: req.method!, path: req.url!, headers });
    const fault = this.faults.shift();
    if (fault) {
      if (fault.forward) await this.forward(req.method!, req.url!, headers, body, undefined);
      res.writeHead(fault.status, { 'content-type': 'application/problem+json', ...fault.headers });
      res.end(JSON.stringify({ type: 'about:blank', title: http.STATUS_CODES[fault.status], status: fault.status }));
      return;
    }
    await this.forward(req.method!, req.url!, headers, body, res).catch(() => res.destroy());
  }

  private forward(method: string, path: string, headers: http.IncomingHttpHeaders, body: Buffer, res: http.ServerResponse | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const up = http.request(new URL(path, this.upstream), { method, headers }, (answer) => {
        if (!res) {
          answer.resume();
          answer.on('end', resolve);
          return;
        }
        res.writeHead(answer.statusCode!, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
        answer.on('end', resolve);
        res.on('close', () => {
          answer.destroy();
          resolve();
        });
      });
      up.on('error', reject);
      up.end(body);
    });
  }
}
