import type Database from 'better-sqlite3';
import type { InvitationRecord, InvitationRows, NewInvitationRow } from '../domain/auth/invitations.js';

/** An invitation with its workspace's and its inviter's names. */
const SELECT = `SELECT i.id, i.workspace_id AS workspaceId, w.name AS workspaceName, i.email, i.role, i.invited_by AS invitedBy,
                       u.name AS inviterName, i.created_at AS createdAt, i.expires_at AS expiresAt, i.sent_by_mail AS sentByMail, i.state
                FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN users u ON u.id = i.invited_by`;
type SqlRow = Omit<InvitationRecord, 'sentByMail'> & { sentByMail: number };
const toRecord = (r: SqlRow): InvitationRecord => ({ ...r, sentByMail: r.sentByMail === 1 });

class AddressTaken extends Error {}

/** `sqlite` wording of a unique-index refusal on the users' address index. */
const isAddressTaken = (err: unknown) => err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_UNIQUE' && err.message.includes('users_verified_email_uq');

/**
 * The invitations in SQLite. Synchronous inside (better-sqlite3), Promises outside: the seam
 * src/db/pg/invitation-rows.ts plugs into. Each change of state is one conditional UPDATE, so a
 * second use of the same invitation finds it no longer open.
 */
export class SqliteInvitationRows implements InvitationRows {
  private readonly s;
  private readonly acceptNew;
  private readonly acceptExisting;

  constructor(sqlite: Database.Database) {
    const open = `state = 'pending' AND expires_at > @now`;
    this.s = {
      upsert: sqlite.prepare<[NewInvitationRow], string>(
        `INSERT INTO invitations (id, workspace_id, email, role, invited_by, token_hash, created_at, expires_at)
         VALUES (@id, @workspaceId, @email, @role, @invitedBy, @tokenHash, @createdAt, @expiresAt)
         ON CONFLICT (workspace_id, lower(email)) WHERE state = 'pending'
         DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, token_hash = excluded.token_hash,
                       expires_at = excluded.expires_at, sent_by_mail = 0
         RETURNING id`,
      ).pluck(),
      byId: sqlite.prepare<[string], SqlRow>(`${SELECT} WHERE i.id = ?`),
      byHash: sqlite.prepare<[string], SqlRow>(`${SELECT} WHERE i.token_hash = ?`),
      pendingOf: sqlite.prepare<[string], SqlRow>(`${SELECT} WHERE i.workspace_id = ? AND i.state = 'pending' ORDER BY i.created_at, i.id`),
      openFor: sqlite.prepare<[{ email: string; now: number }], SqlRow>(
        `${SELECT} WHERE lower(i.email) = lower(@email) AND i.state = 'pending' AND i.expires_at > @now ORDER BY i.created_at, i.id`,
      ),
      reissue: sqlite.prepare<[{ id: string; workspaceId: string; tokenHash: string; invitedBy: string; expiresAt: number }]>(
        `UPDATE invitations SET token_hash = @tokenHash, invited_by = @invitedBy, expires_at = @expiresAt, sent_by_mail = 0
         WHERE id = @id AND workspace_id = @workspaceId AND state = 'pending'`,
      ),
      markSent: sqlite.prepare<[string, string]>('UPDATE invitations SET sent_by_mail = 1 WHERE id = ? AND token_hash = ?'),
      withdraw: sqlite.prepare<[{ id: string; workspaceId: string; now: number }]>(
        `UPDATE invitations SET state = 'withdrawn', resolved_at = @now WHERE id = @id AND workspace_id = @workspaceId AND state = 'pending'`,
      ),
      resolveOpen: sqlite.prepare<[{ state: string; id: string; email: string; now: number }]>(
        `UPDATE invitations SET state = @state, resolved_at = @now WHERE id = @id AND lower(email) = lower(@email) AND ${open}`,
      ),
      claimByHash: sqlite.prepare<[{ tokenHash: string; now: number }], string>(
        `UPDATE invitations SET state = 'accepted', resolved_at = @now WHERE token_hash = @tokenHash AND ${open} RETURNING id`,
      ).pluck(),
      // The address is proven only when the invitation reached it by e-mail: a link shown to the inviter proves no mailbox.
      insertUser: sqlite.prepare<[{ id: string; email: string; name: string; verified: number; now: number }]>(
        'INSERT INTO users (id, email, name, email_verified, created_at) VALUES (@id, @email, @name, @verified, @now)',
      ),
      verifiedHolder: sqlite.prepare<[string], number>('SELECT 1 FROM users WHERE lower(email) = lower(?) AND email_verified = 1').pluck(),
      addMember: sqlite.prepare<[{ workspaceId: string; userId: string; role: string; now: number }]>(
        'INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (@workspaceId, @userId, @role, @now) ON CONFLICT DO NOTHING',
      ),
    };
    const s = this.s;
    this.acceptNew = sqlite.transaction((tokenHash: string, user: { id: string; name: string }, now: number) => {
      const id = s.claimByHash.get({ tokenHash, now });
      if (id === undefined) return { status: 'gone' as const };
      const inv = toRecord(s.byId.get(id)!);
      // An account proved this address meanwhile: roll back, so the invitation stays pending for it.
      if (s.verifiedHolder.get(inv.email) !== undefined) throw new AddressTaken();
      s.insertUser.run({ id: user.id, email: inv.email, name: user.name, verified: inv.sentByMail ? 1 : 0, now });
      s.addMember.run({ workspaceId: inv.workspaceId, userId: user.id, role: inv.role, now });
      return { status: 'accepted' as const, invitation: { ...inv, state: 'accepted' as const } };
    });
    this.acceptExisting = sqlite.transaction((id: string, email: string, userId: string, now: number) => {
      if (s.resolveOpen.run({ state: 'accepted', id, email, now }).changes === 0) return false;
      const inv = s.byId.get(id)!;
      s.addMember.run({ workspaceId: inv.workspaceId, userId, role: inv.role, now });
      return true;
    });
  }

  async upsertPending(row: NewInvitationRow) {
    const id = this.s.upsert.get(row)!;
    return { id, reissued: id !== row.id };
  }

  async byId(id: string) {
    const r = this.s.byId.get(id);
    return r && toRecord(r);
  }

  async byTokenHash(tokenHash: string) {
    const r = this.s.byHash.get(tokenHash);
    return r && toRecord(r);
  }

  async pendingOfWorkspace(workspaceId: string) {
    return this.s.pendingOf.all(workspaceId).map(toRecord);
  }

  async openForEmail(email: string, now: number) {
    return this.s.openFor.all({ email, now }).map(toRecord);
  }

  async reissue(id: string, workspaceId: string, tokenHash: string, invitedBy: string, _now: number, expiresAt: number) {
    return this.s.reissue.run({ id, workspaceId, tokenHash, invitedBy, expiresAt }).changes > 0;
  }

  async markSentByMail(id: string, tokenHash: string) {
    this.s.markSent.run(id, tokenHash);
  }

  async withdraw(id: string, workspaceId: string, now: number) {
    return this.s.withdraw.run({ id, workspaceId, now }).changes > 0;
  }

  async decline(id: string, email: string, now: number) {
    return this.s.resolveOpen.run({ state: 'declined', id, email, now }).changes > 0;
  }

  async acceptForUser(id: string, email: string, userId: string, now: number) {
    return this.acceptExisting(id, email, userId, now);
  }

  async acceptAsNewUser(tokenHash: string, user: { id: string; name: string }, now: number) {
    try {
      return this.acceptNew(tokenHash, user, now);
    } catch (err) {
      // The whole transaction rolled back: the invitation stays pending for the account that has the address.
      if (err instanceof AddressTaken || isAddressTaken(err)) return { status: 'taken' as const };
      throw err;
    }
  }
}
