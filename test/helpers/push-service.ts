import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
// http_ece: the reference implementation of RFC 8188 (aes128gcm) by the RFC's author, as web-push's own tests use it.
// @ts-expect-error no type declarations are published for http_ece
import ece from 'http_ece';
import { generate } from 'selfsigned';
import type { PushPayload } from '../../src/notify/push/payload.js';

/** One request the fake push service received, decrypted with the subscription's private key. */
export interface ReceivedPush {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The decrypted payload, parsed (null when the service refused it). */
  payload: PushPayload | null;
}

/** A subscription the test makes itself, as a browser would: a P-256 key pair and a 16-byte auth secret. */
export interface TestSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  ecdh: ECDH;
}

/**
 * A push service on loopback HTTPS with a self-signed certificate made for the
 * test. It decrypts every push (RFC 8291 aes128gcm) with the private key of
 * the subscription its path belongs to, and answers each path with the status
 * the test set (201 by default).
 */
export class FakePushService {
  readonly received: ReceivedPush[] = [];
  readonly statusFor = new Map<string, number>();
  private readonly keys = new Map<string, TestSubscription>();

  private constructor(
    private readonly server: https.Server,
    readonly ca: string,
    readonly origin: string,
  ) {}

  static async start(): Promise<FakePushService> {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    // Assigned once below: the handler needs the instance, the instance needs the listening server.
    // eslint-disable-next-line prefer-const
    let self: FakePushService | undefined;
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const status = self!.statusFor.get(path) ?? 201;
        const sub = self!.keys.get(path);
        let payload: PushPayload | null = null;
        if (sub && status < 300) {
          const plain: Buffer = ece.decrypt(Buffer.concat(chunks), { version: 'aes128gcm', privateKey: sub.ecdh, authSecret: sub.keys.auth });
          payload = JSON.parse(plain.toString('utf8')) as PushPayload;
        }
        self!.received.push({ path, headers: req.headers, payload });
        res.writeHead(status).end(status === 410 ? 'push subscription has unsubscribed or expired' : '');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    self = new FakePushService(server, pems.cert, `https://127.0.0.1:${port}`);
    return self;
  }

  /** A new subscription on this service, keys made by the test. */
  subscription(name: string): TestSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const sub = {
      endpoint: `${this.origin}/push/${name}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
      ecdh,
    };
    this.keys.set(`/push/${name}`, sub);
    return sub;
  }

  to(name: string): ReceivedPush[] {
    return this.received.filter((r) => r.path === `/push/${name}`);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/**
 * Checks a VAPID Authorization header (RFC 8292): `vapid t=<JWT>, k=<public key>`,
 * an ES256 JWT signed by that key, for the endpoint's origin. Returns the claims.
 */
export function verifyVapid(header: string | undefined, expectedKey: string, audience: string): { aud: string; exp: number; sub: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!m) throw new Error(`not a VAPID header: ${header}`);
  const [, jwt, k] = m;
  if (k !== expectedKey) throw new Error('k is not the server public key');
  const [h, p, s] = jwt!.split('.');
  const head = JSON.parse(Buffer.from(h!, 'base64url').toString());
  if (head.alg !== 'ES256') throw new Error(`alg ${head.alg}`);
  const raw = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s!, 'base64url'));
  if (!ok) throw new Error('VAPID signature does not verify');
  const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
  if (claims.aud !== audience) throw new Error(`aud ${claims.aud}, expected ${audience}`);
  return claims;
}
