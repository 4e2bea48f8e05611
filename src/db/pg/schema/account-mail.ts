// PostgreSQL mirror of src/db/sqlite/schema/account-mail.ts.
import { bigint, index, integer, pgTable } from 'drizzle-orm/pg-core';
import { text } from './types.js';

export const accountEmails = pgTable(
  'account_emails',
  {
    id: text('id').primaryKey(),
    toAddress: text('to_address').notNull(),
    kind: text('kind', { enum: ['sign-in', 'confirm-email'] }).notNull(),
    sealedLink: text('sealed_link'),
    linkExpiresAt: bigint('link_expires_at', { mode: 'number' }).notNull(),
    state: text('state', { enum: ['pending', 'sending', 'sent', 'failed'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: bigint('next_attempt_at', { mode: 'number' }).notNull(),
    claimedAt: bigint('claimed_at', { mode: 'number' }),
    lastError: text('last_error'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }),
  },
  (t) => [index('account_emails_due_idx').on(t.state, t.nextAttemptAt)],
);
