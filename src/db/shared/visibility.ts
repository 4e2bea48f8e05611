/**
 * The one channel visibility rule, as SQL over a `channels c` row: public, or the user (an SQL
 * expression: a parameter or a column) is an explicit member. `NOT c.is_private` reads the same on
 * both engines (SQLite's 0/1, PostgreSQL's boolean). The read API, the live stream and e-mail
 * recipients all use it.
 */
export const channelVisibleTo = (userExpr: string) =>
  `(NOT c.is_private OR EXISTS (SELECT 1 FROM channel_members cm WHERE cm.channel_id = c.id AND cm.user_id = ${userExpr}))`;
