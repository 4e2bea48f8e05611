import { describe, expectTypeOf, it } from 'vitest';
import type * as pg from '../../src/db/pg/schema/alerts.js';
import type * as sqlite from '../../src/db/sqlite/schema/alerts.js';
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
