/**
 * The one channel visibility rule, as SQL over a `channels c` row: public, or
 * the user (an SQL expression: a parameter or a column) is an explicit member.
 * The read API, the live stream and e-mail recipients all use it.
 */
export const channelVisibleTo = (userExpr: string) =>
  `(c.is_private = 0 OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userExpr}))`;

/** Visible to the principal bound as @workspaceId / @userId: its workspace, and the rule above. */
export const VISIBLE_TO_PRINCIPAL = `c.workspace_id = @workspaceId AND ${channelVisibleTo('@userId')}`;
