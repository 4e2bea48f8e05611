export * from './accounts.js';
export * from './channels.js';
export * from './alerts.js';
export * from './notify.js';
export * from './ops.js';
export * from './auth.js';
export * from './alert-groups.js';
export * from './push.js';
