// The one schema: every file exports each table twice, `[name, pgName] = table(…)` (define.ts).
// drizzle.config.ts and drizzle.pg.config.ts both read this index; each keeps its engine's tables.
export * from './accounts.js';
export * from './channels.js';
export * from './alerts.js';
export * from './notify.js';
export * from './ops.js';
export * from './auth.js';
export * from './alert-groups.js';
export * from './push.js';
export * from './account-mail.js';
export * from './invitations.js';
export * from './routes.js';
export * from './settings.js';
export * from './silences.js';
export * from './alert-history.js';
export * from './feed-preferences.js';
export * from './quiet-hours.js';
export * from './escalations.js';
export * from './heartbeats.js';
export * from './sso.js';
