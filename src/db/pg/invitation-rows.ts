import type pg from 'pg';
import type { InvitationRecord, InvitationRows, NewInvitationRow } from '../../domain/auth/invitations.js';
import { inTransaction } from './transaction.js';

/** An invitation with its workspace's and its inviter's names. */
const SELECT = `SELECT i.id, i.workspace_id AS "workspaceId", w.name AS "workspaceName", i.email, i.role, i.invited_by AS "invitedBy",
                       u.name AS "inviterName", i.created_at AS "createdAt", i.expires_at AS "expiresAt", i.sent_by_mail AS "sentByMail", i.state
                FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN users u ON u.id = i.invited_by`;

class AddressTaken extends Error {}

const isAddressTaken = (err: unknown) => err instanceof Error && 'code' in err && err.code === '23505' && 'constraint' in err && err.constraint === 'users_verified_email_uq';

/**
 * The invitations on PostgreSQL: the same statements as src/db/invitation-rows.ts. A change of
 * state is one conditional UPDATE, so two nodes using one invitation at the same moment find it
 * open once; acceptance writes its rows in one transaction.
 */
export class PgInvitationRows implements InvitationRows {
  constructor(private readonly pool: pg.Pool) {}

  async upsertPending(row: NewInvitationRow) {
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO invitations (id, workspace_id, email, role, invited_by, token_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (workspace_id, lower(email)) WHERE state = 'pending'
       DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, token_hash = excluded.token_hash,
                     expires_at = excluded.expires_at, sent_by_mail = false
       RETURNING id`,
      [row.id, row.workspaceId, row.email, row.role, row.invitedBy, row.tokenHash, row.createdAt, row.expiresAt],
    );
    return { id: rows[0]!.id, reissued: rows[0]!.id !== row.id };
  }

  async byId(id: string) {
    return (await this.pool.query<InvitationRecord>(`${SELECT} WHERE i.id = $1`, [id])).rows[0];
  }

  async byTokenHash(tokenHash: string) {
    return (await this.pool.query<InvitationRecord>(`${SELECT} WHERE i.token_hash = $1`, [tokenHash])).rows[0];
  }

  async pendingOfWorkspace(workspaceId: string) {
    return (await this.pool.query<InvitationRecord>(`${SELECT} WHERE i.workspace_id = $1 AND i.state = 'pending' ORDER BY i.created_at, i.id`, [workspaceId])).rows;
  }

  async openForEmail(email: string, now: number) {
    const { rows } = await this.pool.query<InvitationRecord>(
      `${SELECT} WHERE lower(i.email) = lower($1) AND i.state = 'pending' AND i.expires_at > $2 ORDER BY i.created_at, i.id`,
      [email, now],
    );
    return rows;
  }

  async reissue(id: string, workspaceId: string, tokenHash: string, invitedBy: string, _now: number, expiresAt: number) {
    const res = await this.pool.query(
      `UPDATE invitations SET token_hash = $1, invited_by = $2, expires_at = $3, sent_by_mail = false
       WHERE id = $4 AND workspace_id = $5 AND state = 'pending'`,
      [tokenHash, invitedBy, expiresAt, id, workspaceId],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async markSentByMail(id: string, tokenHash: string) {
    await this.pool.query('UPDATE invitations SET sent_by_mail = true WHERE id = $1 AND token_hash = $2', [id, tokenHash]);
  }

  async withdraw(id: string, workspaceId: string, now: number) {
    const res = await this.pool.query(
      `UPDATE invitations SET state = 'withdrawn', resolved_at = $1 WHERE id = $2 AND workspace_id = $3 AND state = 'pending'`,
      [now, id, workspaceId],
    );
    return (res.rowCount ?? 0) > 0;
  }

  async decline(id: string, email: string, now: number) {
    return (await resolveOpen(this.pool, 'declined', id, email, now)) !== undefined;
  }

  acceptForUser(id: string, email: string, userId: string, now: number) {
    return inTransaction(this.pool, async (tx) => {
      const inv = await resolveOpen(tx, 'accepted', id, email, now);
      if (!inv) return false;
      await addMember(tx, inv.workspaceId, userId, inv.role, now);
      return true;
    });
  }

  async acceptAsNewUser(tokenHash: string, user: { id: string; name: string }, now: number) {
    try {
      return await inTransaction(this.pool, async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `UPDATE invitations SET state = 'accepted', resolved_at = $1 WHERE token_hash = $2 AND state = 'pending' AND expires_at > $1 RETURNING id`,
          [now, tokenHash],
        );
        if (!rows[0]) return { status: 'gone' as const };
        const inv = (await tx.query<InvitationRecord>(`${SELECT} WHERE i.id = $1`, [rows[0].id])).rows[0]!;
        // An account proved this address meanwhile: roll back, so the invitation stays pending for it.
        const holder = await tx.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND email_verified', [inv.email]);
        if (holder.rowCount !== 0) throw new AddressTaken();
        // The address is proven only when the invitation reached it by e-mail: a link shown to the inviter proves no mailbox.
        await tx.query('INSERT INTO users (id, email, name, email_verified, created_at) VALUES ($1, $2, $3, $4, $5)', [user.id, inv.email, user.name, inv.sentByMail, now]);
        await addMember(tx, inv.workspaceId, user.id, inv.role, now);
        return { status: 'accepted' as const, invitation: inv };
      });
    } catch (err) {
      // Rolled back as a whole: the invitation stays pending for the account that has the address.
      if (err instanceof AddressTaken || isAddressTaken(err)) return { status: 'taken' as const };
      throw err;
    }
  }
}

async function resolveOpen(db: pg.Pool | pg.PoolClient, state: 'accepted' | 'declined', id: string, email: string, now: number) {
  const { rows } = await db.query<{ workspaceId: string; role: string }>(
    `UPDATE invitations SET state = $1, resolved_at = $2
     WHERE id = $3 AND lower(email) = lower($4) AND state = 'pending' AND expires_at > $2
     RETURNING workspace_id AS "workspaceId", role`,
    [state, now, id, email],
  );
  return rows[0];
}

async function addMember(tx: pg.PoolClient, workspaceId: string, userId: string, role: string, now: number) {
  await tx.query('INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [workspaceId, userId, role, now]);
}
