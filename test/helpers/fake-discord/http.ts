/** Small shared helpers of the fake Discord: loopback servers, request bodies, Discord's error bodies, map look-ups. */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a REST route answers: a status and an optional JSON body. */
export interface RestResult {
  status: number;
  body?: unknown;
}

/** Discord's JSON error body `{message, code}`. */
export function errorBody(status: number, code: number, message: string): RestResult {
  return { status, body: { message, code } };
}

/** Discord's 400 "Invalid Form Body" (code 50035) for one field. */
export function invalidForm(field: string, message: string): RestResult {
  return {
    status: 400,
    body: { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } } },
  };
}

/** The entry of `map` at `id`, or an error naming what is unknown (a test wiring mistake, not a Discord answer). */
export function required<T>(map: ReadonlyMap<string, T>, id: string, what: string): T {
  const value = map.get(id);
  if (value === undefined) throw new Error(`unknown ${what} ${id}`);
  return value;
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Listen on an ephemeral port of 127.0.0.1; resolves with the port. */
export function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
