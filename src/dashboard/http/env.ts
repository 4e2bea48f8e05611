import type { Session } from '../../domain/auth/sessions.js';
import type { Role } from '../ports.js';
import type { DashboardDeps } from '../deps.js';
import type { Flash } from './flash.js';

export interface Viewer {
  id: string;
  email: string;
  name: string;
  /** Whether the address is proven (an unverified one matches no sign-in link or invitation). */
  emailVerified: boolean;
}

export interface WorkspaceView {
  id: string;
  name: string;
  role: Role;
}

/** Context variables of dashboard requests (set by the session middleware). */
export interface DashEnv {
  Variables: {
    dash: DashboardDeps;
    session: Session;
    /** The cookie secret: the CSRF token is derived from it and it never leaves this request. */
    sessionSecret: string;
    viewer: Viewer;
    /** The current workspace, or undefined for a user who belongs to none. */
    workspace: WorkspaceView | undefined;
    workspaces: WorkspaceView[];
    csrfToken: string;
    clientAddress: string | null;
    /** Open invitations the viewer may accept (set for page loads; the frame points to them). */
    pendingInvitations: number;
    /** The one-time result this page was redirected to show (src/dashboard/http/flash.ts), read and deleted. */
    flash: Flash | undefined;
  };
}
