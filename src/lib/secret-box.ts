import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Secrets the service must use again (route targets, bot tokens, signing secrets) are sealed with
 * AES-256-GCM under SECRETS_KEY, so a copy of the database or a backup alone reveals none of them.
 * A sealed value names the key it was sealed with (`keyId`, 8 hex characters of the key's SHA-256),
 * so a wrong key is told apart from a damaged value.
 */
export interface SecretBox {
  /** The key's fingerprint, or null when no key could be loaded (routes are then disabled). */
  readonly keyId: string | null;
  /** Why there is no key, in words an operator can act on. */
  readonly unavailable: string | null;
  seal(plain: string): string;
  /** The plain text, or throws SecretKeyError when the value was sealed under another key. */
  open(sealed: string): string;
}

export class SecretKeyError extends Error {}

const FORMAT = 'v1';
const KEY_FILE = 'secrets.key';

/** A 32-byte key written as 64 hex digits or base64 (44 characters); anything else is refused, never stretched. */
export function parseSecretsKey(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(t)) return Buffer.from(t, 'base64');
  return null;
}

/**
 * The key from SECRETS_KEY, else from DATA_DIR/secrets.key, else a new one written there once with
 * mode 0600 (`create` false: the admin CLI's read-only commands never create it). Never throws: a
 * bad key gives a box without a key and the reason.
 */
export function loadSecretBox(o: { secretsKey: string | undefined; dataDir: string; create: boolean }): SecretBox {
  if (o.secretsKey !== undefined) {
    const key = parseSecretsKey(o.secretsKey);
    return key ? new AesSecretBox(key) : new NoKey('SECRETS_KEY is not a 32-byte key (64 hex digits or 44 base64 characters); routes are disabled until it is fixed');
  }
  const file = path.join(o.dataDir, KEY_FILE);
  try {
    const key = parseSecretsKey(fs.readFileSync(file, 'utf8'));
    return key ? new AesSecretBox(key) : new NoKey(`${file} does not hold a 32-byte key; routes are disabled until it is restored from a backup`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return new NoKey(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (!o.create) return new NoKey(`no SECRETS_KEY and no ${file}`);
  const key = crypto.randomBytes(32);
  fs.mkdirSync(o.dataDir, { recursive: true });
  try {
    // 'wx': two processes starting at once never overwrite each other's key; the loser reads the winner's.
    fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadSecretBox({ ...o, create: false });
    return new NoKey(`cannot write ${file}: ${(err as Error).message}`);
  }
  return new AesSecretBox(key);
}

export class AesSecretBox implements SecretBox {
  readonly keyId: string;
  readonly unavailable = null;

  constructor(private readonly key: Buffer) {
    this.keyId = crypto.createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  seal(plain: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [FORMAT, this.keyId, iv.toString('base64'), body.toString('base64')].join('.');
  }

  open(sealed: string): string {
    const [format, keyId, iv, body] = sealed.split('.');
    if (format !== FORMAT || !keyId || !iv || !body) throw new SecretKeyError('the stored secret is damaged');
    if (keyId !== this.keyId) throw new SecretKeyError(`sealed under key ${keyId}, but SECRETS_KEY is key ${this.keyId}: restore the original key`);
    const bytes = Buffer.from(body, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('the stored secret does not open under SECRETS_KEY (damaged, or another key)');
    }
  }
}

class NoKey implements SecretBox {
  readonly keyId = null;
  constructor(readonly unavailable: string) {}
  seal(): string {
    throw new SecretKeyError(this.unavailable);
  }
  open(): string {
    throw new SecretKeyError(this.unavailable);
  }
}
