import { bigint, integer, text, table } from './define.js';

/**
 * The account e-mails' outbox (sign-in links, address confirmations, route pause notices): the request writes a row and
 * answers at once, a worker sends it (src/notify/account-mail-worker.ts), so the answer takes the
 * same time whether or not an e-mail is owed (no account enumeration by timing) and a send survives
 * a restart. The link is a secret: `sealed_link` holds it encrypted with an app secret
 * (src/domain/auth/account-mail.ts) and is blanked once the row is sent or given up.
 * Separate from the alert notification outbox: different recipients, rules and retention.
 */
export const [accountEmails, pgAccountEmails] = table(
  'account_emails',
  {
    id: text('id').primaryKey(),
    toAddress: text('to_address').notNull(),
    kind: text('kind', { enum: ['sign-in', 'confirm-email', 'route-paused'] }).notNull(),
    sealedLink: text('sealed_link'),
    /** The link stops working then: sending it later is pointless, so the row fails instead. */
    linkExpiresAt: bigint('link_expires_at').notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at').notNull(),
    /** When a worker took the row: on PostgreSQL a row `sending` for longer than the lease belongs to a node that died. */
    claimedAt: bigint('claimed_at'),
    lastError: text('last_error'),
    createdAt: bigint('created_at').notNull(),
    finishedAt: bigint('finished_at'),
  },
  (t, { index }) => [index('account_emails_due_idx').on(t.state, t.nextAttemptAt)],
);
