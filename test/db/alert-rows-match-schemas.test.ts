import { describe, expect, expectTypeOf, it } from 'vitest';
import * as pg from '../../src/db/pg/schema/alerts.js';
import * as sqlite from '../../src/db/sqlite/schema/alerts.js';
import { CONTENT_KEYS, contentColumn } from '../../src/db/shared/alert-content-columns.js';
import type { AlertEventType, AlertRow, AttachmentRow, NotificationKind } from '../../src/domain/alert-rows.js';

// The use cases declare the alert store's row types themselves (src/domain/alert-rows.ts), so that
// domain/ imports no schema. These checks run in `npm run typecheck`: a column added, removed or
// retyped in either drizzle schema without the domain's type following fails the build.
describe('the domain row types are what both schemas store', () => {
  it('SQLite', () => {
    expectTypeOf<AlertRow>().toEqualTypeOf<Omit<typeof sqlite.alerts.$inferSelect, 'metadataJson'>>();
    expectTypeOf<AttachmentRow>().toEqualTypeOf<typeof sqlite.alertAttachments.$inferSelect>();
    expectTypeOf<AlertEventType>().toEqualTypeOf<(typeof sqlite.alertEvents.$inferSelect)['type']>();
    expectTypeOf<NotificationKind>().toEqualTypeOf<(typeof sqlite.notificationJobs.$inferSelect)['kind']>();
  });

  it('PostgreSQL', () => {
    expectTypeOf<AlertRow>().toEqualTypeOf<Omit<typeof pg.alerts.$inferSelect, 'metadataJson'>>();
    expectTypeOf<AttachmentRow>().toEqualTypeOf<typeof pg.alertAttachments.$inferSelect>();
    expectTypeOf<AlertEventType>().toEqualTypeOf<(typeof pg.alertEvents.$inferSelect)['type']>();
    expectTypeOf<NotificationKind>().toEqualTypeOf<(typeof pg.notificationJobs.$inferSelect)['kind']>();
  });
});

// The content writes are built from this list, so a wrong column name or unnest type there would
// break every insert; checked against both schemas here rather than at the first failing write.
describe('the content list names each content column as both schemas do', () => {
  it.each(CONTENT_KEYS)('%s', (key) => {
    const { column, pgType } = contentColumn(key);
    expect(sqlite.alerts[key].name).toBe(column);
    expect(pg.alerts[key].name).toBe(column);
    expect(pg.alerts[key].getSQLType().split(' ')[0]).toBe(pgType);
  });
});
