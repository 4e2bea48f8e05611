import { channelVisibleTo } from './shared/visibility.js';

/** Visible to the principal bound as @workspaceId / @userId: its workspace, and the one rule (shared/visibility.ts). */
export const VISIBLE_TO_PRINCIPAL = `c.workspace_id = @workspaceId AND ${channelVisibleTo('@userId')}`;
