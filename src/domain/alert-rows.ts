import type { alertAttachments, alertEvents, alerts, notificationJobs } from '../db/schema/alerts.js';

// The alert store's row types, derived from the drizzle schema so the two can never drift apart;
// shared by the store's interfaces (alert-store.ts, outbox-store.ts) and re-exported by alert-store.ts.

/** One alert row as stored (the opaque metadata excepted: nothing reads it back). */
export type AlertRow = Omit<typeof alerts.$inferSelect, 'metadataJson'>;
export type AttachmentRow = typeof alertAttachments.$inferSelect;
export type AlertLevel = AlertRow['level'];
export type RunState = NonNullable<AlertRow['workflowState']>;
/** The column enums of the schema, so the two can never drift apart. */
export type AlertEventType = (typeof alertEvents.$inferSelect)['type'];
export type NotificationKind = (typeof notificationJobs.$inferSelect)['kind'];

/** A file already in the media store, ready to be attached. */
export type AttachmentRecord = Pick<AttachmentRow, 'mediaKey' | 'mime' | 'kind' | 'name' | 'size'>;

