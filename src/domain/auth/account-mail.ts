import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ChangeBus } from '../changes.js';
import type { Clock } from '../../lib/clock.js';
import type { IdGenerator } from '../../lib/ids.js';
import { appSecret, type AppSecretRows } from './app-secrets.js';

/** The name of the key that seals the links waiting in the account e-mail outbox. */
export const ACCOUNT_MAIL_SECRET_NAME = 'account-mail-aead';
/** The bus event that wakes the account e-mail worker (src/notify/account-mail-worker.ts). */
export const ACCOUNT_MAIL_EVENT = 'account-emails';

/** `route-paused`: a notice to owners and admins that a route was paused after an hour of failures (issue 27). */
export type AccountMailKind = 'sign-in' | 'confirm-email' | 'route-paused';

/** A row claimed for sending. */
export interface ClaimedAccountMail {
  id: string;
  toAddress: string;
  kind: AccountMailKind;
  /** Null once the row was given up or sent (never expected here, but a row may be tampered with). */
  sealedLink: string | null;
  linkExpiresAt: number;
  /** Attempts so far, this one included. */
  attempts: number;
}

/** The account_emails rows (src/db/shared/account-mail-rows.ts). */
export interface AccountMailRows {
  insert(row: { id: string; toAddress: string; kind: AccountMailKind; sealedLink: string; linkExpiresAt: number; createdAt: number }): Promise<void>;
  /** Ids of pending rows due at `now`, oldest first. */
  dueIds(now: number, limit: number): Promise<string[]>;
  /** Takes a pending, due row (one statement: of two workers, on any nodes, one gets it). */
  claim(id: string, now: number): Promise<ClaimedAccountMail | undefined>;
  /** Sent: the sealed link is blanked. */
  sent(id: string, now: number): Promise<void>;
  retry(id: string, nextAttemptAt: number, error: string): Promise<void>;
  /** Given up: the sealed link is blanked. */
  failed(id: string, now: number, error: string): Promise<void>;
  nextDue(): Promise<number | null>;
  anythingDue(now: number): Promise<boolean>;
  /** Rows `sending` since `claimedBefore` or earlier become failed (blanked); how many. */
  recoverInterrupted(claimedBefore: number, now: number, error: string): Promise<number>;
  /** Deletes sent and failed rows finished before `before`. */
  prune(before: number): Promise<number>;
}

/**
 * The account e-mails (sign-in links, address confirmations) go through their own durable outbox:
 * the request stores a row and returns, so answering takes the same time whether or not an account
 * matched, and a send outlives a restart. The link is a secret, so the row holds it sealed
 * (AES-256-GCM under an app secret, bound to the row id): a copy of the database without the
 * app_secrets table, or a row moved to another id, yields nothing.
 */
export class AccountMail {
  private readonly key: Buffer;

  constructor(
    readonly rows: AccountMailRows,
    secrets: AppSecretRows,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly bus: ChangeBus,
  ) {
    this.key = appSecret(secrets, clock, ACCOUNT_MAIL_SECRET_NAME);
  }

  /** Queues the e-mail carrying `link` (valid until `linkExpiresAt`) and wakes the worker. */
  async enqueue(mail: { to: string; kind: AccountMailKind; link: string; linkExpiresAt: number }): Promise<void> {
    const id = this.ids.next('aml');
    await this.rows.insert({ id, toAddress: mail.to, kind: mail.kind, sealedLink: this.seal(id, mail.link), linkExpiresAt: mail.linkExpiresAt, createdAt: this.clock.now() });
    this.bus.emit(ACCOUNT_MAIL_EVENT);
  }

  /** The link of a claimed row; undefined when it does not open (another key, another row's ciphertext). */
  open(row: Pick<ClaimedAccountMail, 'id' | 'sealedLink'>): string | undefined {
    if (!row.sealedLink) return undefined;
    try {
      const raw = Buffer.from(row.sealedLink, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(row.id));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  private seal(id: string, link: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(id));
    const body = Buffer.concat([cipher.update(link, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }
}
