import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake receiver got, as it arrived. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => Record<string, unknown>;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A receiver on loopback (Slack, Discord, Teams, Telegram, Matrix, ntfy or a plain webhook endpoint):
 * records every request and answers what `answer` returns for it (default 200 and an empty JSON
 * object). Route tests check the request shapes each receiver's API documents against what lands here.
 */
export async function startFakeReceiver(answer: (req: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: '{}' })) {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const got: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json: () => JSON.parse(body) as Record<string, unknown> };
      received.push(got);
      const a = answer(got, received.length - 1);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
