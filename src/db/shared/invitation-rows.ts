import type { Role } from '../../domain/account-rows.js';
import type { InvitationRecord, InvitationRows, NewInvitationRow } from '../../domain/auth/invitations.js';
import { isUniqueClash } from './errors.js';
import type { SqlExecutor } from './executor.js';
import { statement } from './statement.js';

/** An invitation with its workspace's and its inviter's names. */
const SELECT = `SELECT i.id, i.workspace_id AS "workspaceId", w.name AS "workspaceName", i.email, i.role, i.invited_by AS "invitedBy",
                       u.name AS "inviterName", i.created_at AS "createdAt", i.expires_at AS "expiresAt", i.sent_by_mail AS "sentByMail", i.state
                FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN users u ON u.id = i.invited_by`;
const AS_RECORD = { booleans: ['sentByMail'] };
/** Open: pending and not expired at `now`. */
const OPEN = `state = 'pending' AND expires_at > :now`;

const UPSERT_PENDING = statement<NewInvitationRow, { id: string }>(
  `INSERT INTO invitations (id, workspace_id, email, role, invited_by, token_hash, created_at, expires_at)
   VALUES (:id, :workspaceId, :email, :role, :invitedBy, :tokenHash, :createdAt, :expiresAt)
   ON CONFLICT (workspace_id, lower(email)) WHERE state = 'pending'
   DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, token_hash = excluded.token_hash,
                 expires_at = excluded.expires_at, sent_by_mail = FALSE
   RETURNING id`,
);
const BY_ID = statement<{ id: string }, InvitationRecord>(`${SELECT} WHERE i.id = :id`, AS_RECORD);
const BY_TOKEN_HASH = statement<{ tokenHash: string }, InvitationRecord>(`${SELECT} WHERE i.token_hash = :tokenHash`, AS_RECORD);
const PENDING_OF_WORKSPACE = statement<{ workspaceId: string }, InvitationRecord>(
  `${SELECT} WHERE i.workspace_id = :workspaceId AND i.state = 'pending' ORDER BY i.created_at, i.id`,
  AS_RECORD,
);
const OPEN_FOR_EMAIL = statement<{ email: string; now: number }, InvitationRecord>(
  `${SELECT} WHERE lower(i.email) = lower(:email) AND i.state = 'pending' AND i.expires_at > :now ORDER BY i.created_at, i.id`,
  AS_RECORD,
);
const REISSUE = statement<{ id: string; workspaceId: string; tokenHash: string; invitedBy: string; expiresAt: number }>(
  `UPDATE invitations SET token_hash = :tokenHash, invited_by = :invitedBy, expires_at = :expiresAt, sent_by_mail = FALSE
   WHERE id = :id AND workspace_id = :workspaceId AND state = 'pending'`,
);
const MARK_SENT_BY_MAIL = statement<{ id: string; tokenHash: string }>('UPDATE invitations SET sent_by_mail = TRUE WHERE id = :id AND token_hash = :tokenHash');
const WITHDRAW = statement<{ id: string; workspaceId: string; now: number }>(
  `UPDATE invitations SET state = 'withdrawn', resolved_at = :now WHERE id = :id AND workspace_id = :workspaceId AND state = 'pending'`,
);
const RESOLVE_OPEN = statement<{ state: 'accepted' | 'declined'; id: string; email: string; now: number }, { workspaceId: string; role: Role }>(
  `UPDATE invitations SET state = :state, resolved_at = :now WHERE id = :id AND lower(email) = lower(:email) AND ${OPEN}
   RETURNING workspace_id AS "workspaceId", role`,
);
const CLAIM_BY_TOKEN_HASH = statement<{ tokenHash: string; now: number }, { id: string }>(
  `UPDATE invitations SET state = 'accepted', resolved_at = :now WHERE token_hash = :tokenHash AND ${OPEN} RETURNING id`,
);
const VERIFIED_HOLDER = statement<{ email: string }, { one: number }>('SELECT 1 AS one FROM users WHERE lower(email) = lower(:email) AND email_verified = TRUE');
const INSERT_USER = statement<{ id: string; email: string; name: string; verified: boolean; now: number }>(
  'INSERT INTO users (id, email, name, email_verified, created_at) VALUES (:id, :email, :name, :verified, :now)',
);
const ADD_MEMBER = statement<{ workspaceId: string; userId: string; role: Role; now: number }>(
  'INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (:workspaceId, :userId, :role, :now) ON CONFLICT DO NOTHING',
);

class AddressTaken extends Error {}

/**
 * The invitations, on either engine. Each change of state is one conditional UPDATE, so a second use
 * of the same invitation (on PostgreSQL, through any node) finds it no longer open; acceptance writes
 * its rows in one transaction.
 */
export class SqlInvitationRows implements InvitationRows {
  constructor(private readonly database: SqlExecutor) {}

  async upsertPending(row: NewInvitationRow) {
    const { id, workspaceId, email, role, invitedBy, tokenHash, createdAt, expiresAt } = row;
    const stored = (await this.database.get(UPSERT_PENDING, { id, workspaceId, email, role, invitedBy, tokenHash, createdAt, expiresAt }))!;
    return { id: stored.id, reissued: stored.id !== row.id };
  }

  byId(id: string) {
    return this.database.get(BY_ID, { id });
  }

  byTokenHash(tokenHash: string) {
    return this.database.get(BY_TOKEN_HASH, { tokenHash });
  }

  pendingOfWorkspace(workspaceId: string) {
    return this.database.all(PENDING_OF_WORKSPACE, { workspaceId });
  }

  openForEmail(email: string, now: number) {
    return this.database.all(OPEN_FOR_EMAIL, { email, now });
  }

  async reissue(id: string, workspaceId: string, tokenHash: string, invitedBy: string, _now: number, expiresAt: number) {
    return (await this.database.run(REISSUE, { id, workspaceId, tokenHash, invitedBy, expiresAt })) > 0;
  }

  async markSentByMail(id: string, tokenHash: string) {
    await this.database.run(MARK_SENT_BY_MAIL, { id, tokenHash });
  }

  async withdraw(id: string, workspaceId: string, now: number) {
    return (await this.database.run(WITHDRAW, { id, workspaceId, now })) > 0;
  }

  async decline(id: string, email: string, now: number) {
    return (await this.database.get(RESOLVE_OPEN, { state: 'declined', id, email, now })) !== undefined;
  }

  acceptForUser(id: string, email: string, userId: string, now: number) {
    return this.database.transaction(function* (tx) {
      const resolved = yield* tx.get(RESOLVE_OPEN, { state: 'accepted', id, email, now });
      if (!resolved) return false;
      yield* tx.run(ADD_MEMBER, { workspaceId: resolved.workspaceId, userId, role: resolved.role, now });
      return true;
    });
  }

  async acceptAsNewUser(tokenHash: string, user: { id: string; name: string }, now: number) {
    try {
      return await this.database.transaction(function* (tx) {
        const claimed = yield* tx.get(CLAIM_BY_TOKEN_HASH, { tokenHash, now });
        if (!claimed) return { status: 'gone' as const };
        const invitation = (yield* tx.get(BY_ID, { id: claimed.id }))!;
        // An account proved this address meanwhile: roll back, so the invitation stays pending for it.
        if ((yield* tx.get(VERIFIED_HOLDER, { email: invitation.email })) !== undefined) throw new AddressTaken();
        // The address is proven only when the invitation reached it by e-mail: a link shown to the inviter proves no mailbox.
        yield* tx.run(INSERT_USER, { id: user.id, email: invitation.email, name: user.name, verified: invitation.sentByMail, now });
        yield* tx.run(ADD_MEMBER, { workspaceId: invitation.workspaceId, userId: user.id, role: invitation.role, now });
        return { status: 'accepted' as const, invitation };
      });
    } catch (err) {
      // Rolled back as a whole: the invitation stays pending for the account that has the address.
      if (err instanceof AddressTaken || isUniqueClash(err, 'users_verified_email_uq')) return { status: 'taken' as const };
      throw err;
    }
  }
}
