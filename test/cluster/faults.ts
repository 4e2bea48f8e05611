import type { EngineHandle } from './engines.js';

/**
 * A fault for the rollback cases of the delete contracts: while on, recording an `alert.deleted`
 * change fails, so a unit that already deleted rows must give them back. Installed through the
 * other connection, as a trigger (the one statement the two engines spell differently).
 */
export interface DeleteEventFault {
  on(): Promise<void>;
  off(): Promise<void>;
}

export function sqliteFault(h: EngineHandle): DeleteEventFault {
  return {
    on: () => h.exec(`CREATE TRIGGER refuse_deleted BEFORE INSERT ON alert_events WHEN NEW.type = 'alert.deleted' BEGIN SELECT RAISE(ABORT, 'refused'); END`),
    off: () => h.exec('DROP TRIGGER refuse_deleted'),
  };
}

export function pgFault(h: EngineHandle): DeleteEventFault {
  return {
    on: async () => {
      await h.exec(`CREATE OR REPLACE FUNCTION refuse_deleted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
      await h.exec(`CREATE TRIGGER refuse_deleted BEFORE INSERT ON alert_events FOR EACH ROW WHEN (NEW.type = 'alert.deleted') EXECUTE FUNCTION refuse_deleted()`);
    },
    off: () => h.exec('DROP TRIGGER refuse_deleted ON alert_events'),
  };
}
