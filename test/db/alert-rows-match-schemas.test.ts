import { describe, expect, expectTypeOf, it } from 'vitest';
import * as schema from '../../src/db/shared/schema/alerts.js';
import { ALERT_ROW_KEYS, ATTACHMENT_ROW_KEYS, columnName } from '../../src/db/shared/alert-columns.js';
import { CONTENT_KEYS, contentColumn } from '../../src/db/shared/alert-content-columns.js';
import type { AlertEventType, AlertRow, AttachmentRow, NotificationKind } from '../../src/domain/alert-rows.js';

// The use cases declare the alert store's row types themselves (src/domain/alert-rows.ts), so that
// domain/ imports no schema. These checks run in `npm run typecheck`: a column added, removed or
// retyped in either drizzle schema without the domain's type following fails the build.
describe('the domain row types are what both schemas store', () => {
  it('SQLite', () => {
    expectTypeOf<AlertRow>().toEqualTypeOf<Omit<typeof schema.alerts.$inferSelect, 'metadataJson'>>();
    expectTypeOf<AttachmentRow>().toEqualTypeOf<typeof schema.alertAttachments.$inferSelect>();
    expectTypeOf<AlertEventType>().toEqualTypeOf<(typeof schema.alertEvents.$inferSelect)['type']>();
    expectTypeOf<NotificationKind>().toEqualTypeOf<(typeof schema.notificationJobs.$inferSelect)['kind']>();
  });

  it('PostgreSQL', () => {
    expectTypeOf<AlertRow>().toEqualTypeOf<Omit<typeof schema.pgAlerts.$inferSelect, 'metadataJson'>>();
    expectTypeOf<AttachmentRow>().toEqualTypeOf<typeof schema.pgAlertAttachments.$inferSelect>();
    expectTypeOf<AlertEventType>().toEqualTypeOf<(typeof schema.pgAlertEvents.$inferSelect)['type']>();
    expectTypeOf<NotificationKind>().toEqualTypeOf<(typeof schema.pgNotificationJobs.$inferSelect)['kind']>();
  });
});

// The content writes are built from this list, so a wrong column name or unnest type there would
// break every insert; checked against both schemas here rather than at the first failing write.
describe('the content list names each content column as both schemas do', () => {
  it.each(CONTENT_KEYS)('%s', (key) => {
    const { column, pgType } = contentColumn(key);
    expect(schema.alerts[key].name).toBe(column);
    expect(schema.pgAlerts[key].name).toBe(column);
    expect(schema.pgAlerts[key].getSQLType().split(' ')[0]).toBe(pgType);
  });
});

// The reads spell each column from its key (so the service loads no schema); a column renamed in
// a schema without following that rule fails here, not at the first read.
describe('the reads name each column as both schemas do', () => {
  it.each(ALERT_ROW_KEYS)('alerts.%s', (key) => {
    expect(columnName(key)).toBe(schema.alerts[key].name);
    expect(columnName(key)).toBe(schema.pgAlerts[key].name);
  });
  it.each(ATTACHMENT_ROW_KEYS)('alert_attachments.%s', (key) => {
    expect(columnName(key)).toBe(schema.alertAttachments[key].name);
    expect(columnName(key)).toBe(schema.pgAlertAttachments[key].name);
  });
});
