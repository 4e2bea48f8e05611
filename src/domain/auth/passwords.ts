import { scrypt, timingSafeEqual, randomBytes } from 'node:crypto';
import PQueue from 'p-queue';
import { AppError } from '../errors.js';
import type { Clock } from '../../lib/clock.js';

/**
 * OWASP's scrypt parameters (N=2^17, r=8, p=1): 128 * N * r = 128 MiB per hash.
 * Node's default maxmem is 32 MiB, so it is raised just above that.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
export const OWASP_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...params, maxmem: 128 * params.N * params.r * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** The user_passwords rows (src/db/shared/auth-rows.ts). */
export interface PasswordRows {
  hash(userId: string): Promise<string | undefined>;
  upsert(userId: string, hash: string, now: number): Promise<void>;
  remove(userId: string): Promise<void>;
}

/**
 * Password hashing and checks. At most two scrypt computations run at once
 * (each holds 128 MiB), so a burst of sign-ins queues instead of exhausting
 * memory. The stored string is `scrypt$N$r$p$salt$hash` so parameters can be
 * raised later without breaking old hashes.
 */
export class Passwords {
  private readonly queue = new PQueue({ concurrency: 2 });
  constructor(
    private readonly rows: PasswordRows,
    private readonly clock: Clock,
    private readonly params: ScryptParams = OWASP_SCRYPT,
  ) {}

  async hasPassword(userId: string): Promise<boolean> {
    return (await this.rows.hash(userId)) !== undefined;
  }

  async set(userId: string, password: string): Promise<void> {
    if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
      throw new AppError('invalid-body', `a password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
    }
    const salt = randomBytes(16);
    const key = await this.queue.add(() => derive(password, salt, this.params));
    const { N, r, p } = this.params;
    await this.rows.upsert(userId, `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`, this.clock.now());
  }

  remove(userId: string): Promise<void> {
    return this.rows.remove(userId);
  }

  /**
   * False for a wrong password and for a user without one. A user without a
   * password still costs one hash, so timing does not tell which users have one.
   */
  async verify(userId: string | undefined, password: string): Promise<boolean> {
    if (password.length > MAX_PASSWORD_LENGTH) return false;
    const stored = userId ? await this.rows.hash(userId) : undefined;
    const parts = stored?.split('$');
    if (!parts || parts.length !== 6 || parts[0] !== 'scrypt') {
      await this.queue.add(() => derive(password, randomBytes(16), this.params));
      return false;
    }
    const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
    const expected = Buffer.from(hash, 'base64');
    const key = await this.queue.add(() => derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }));
    return key.length === expected.length && timingSafeEqual(key, expected);
  }
}
