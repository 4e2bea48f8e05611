-- Unread counts in constant time (README "Read state that scales"): the PostgreSQL side of the
-- SQLite migration drizzle/0011_unread_sequence.sql, same columns, numbers and trigger rules.
-- Every alert gets a per-channel sequence number (alerts.seq) at insert and a fresh one when it
-- resurfaces; channel_stats.seq_max is the last one handed out. A user's watermark is a sequence
-- number, and read_marks.gone_above counts the numbers above it that no longer hold an alert
-- (deleted, or moved away by resurfacing), kept by the triggers below whoever deletes.
-- Unread = seq_max - watermark_seq - gone_above, plus the user's exceptions.
ALTER TABLE "alerts" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_stats" ADD COLUMN "seq_max" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "read_exceptions" ADD COLUMN "seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "read_marks" ADD COLUMN "watermark_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "read_marks" ADD COLUMN "gone_above" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Backfill: number each channel's alerts 1..n in the old activity-key order, so the sequence
-- order is the read order the watermarks were set against.
UPDATE "alerts" SET "seq" = r.n
  FROM (SELECT "id", row_number() OVER (PARTITION BY "channel_id" ORDER BY "activity_key", "id") AS n FROM "alerts") AS r
  WHERE "alerts"."id" = r."id";--> statement-breakpoint
INSERT INTO "channel_stats" ("channel_id", "alert_count") SELECT "id", 0 FROM "channels"
  ON CONFLICT ("channel_id") DO NOTHING;--> statement-breakpoint
UPDATE "channel_stats" SET
  "alert_count" = (SELECT count(*) FROM "alerts" a WHERE a."channel_id" = "channel_stats"."channel_id"),
  "seq_max" = (SELECT count(*) FROM "alerts" a WHERE a."channel_id" = "channel_stats"."channel_id");--> statement-breakpoint
-- Numbers are dense after the backfill, so the alerts at or below an old watermark are exactly
-- numbers 1..count, and nothing above it is gone yet.
UPDATE "read_marks" SET
  "watermark_seq" = (SELECT count(*) FROM "alerts" a WHERE a."channel_id" = "read_marks"."channel_id" AND a."activity_key" <= "read_marks"."watermark"),
  "gone_above" = 0;--> statement-breakpoint
-- An exception whose activity key no longer matches its alert was already void.
DELETE FROM "read_exceptions" WHERE NOT EXISTS
  (SELECT 1 FROM "alerts" a WHERE a."id" = "read_exceptions"."alert_id" AND a."activity_key" = "read_exceptions"."activity_key");--> statement-breakpoint
UPDATE "read_exceptions" SET "seq" = (SELECT a."seq" FROM "alerts" a WHERE a."id" = "read_exceptions"."alert_id");--> statement-breakpoint
ALTER TABLE "read_exceptions" DROP COLUMN "activity_key";--> statement-breakpoint
ALTER TABLE "read_marks" DROP COLUMN "watermark";--> statement-breakpoint
CREATE INDEX "read_marks_channel_idx" ON "read_marks" USING btree ("channel_id","watermark_seq");--> statement-breakpoint
-- Read state no longer orders by activity_key: its index only cost every insert.
DROP INDEX "alerts_channel_activity_idx";--> statement-breakpoint
-- The triggers of drizzle-pg/0001_channel_stats_triggers.sql call these functions: replacing them
-- is enough. The writers give seq (seq_max + 1); an INSERT that does not (seq = 0, e.g. a
-- hand-written one) gets the next number here. The upsert holds channel_stats' row lock until
-- commit, so concurrent inserts into one channel take distinct numbers. An imported row keeps its seq.
CREATE OR REPLACE FUNCTION alertbridge_alerts_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  top bigint;
BEGIN
  INSERT INTO channel_stats (channel_id, alert_count, seq_max) VALUES (NEW.channel_id, 1, GREATEST(NEW.seq, 1))
    ON CONFLICT (channel_id) DO UPDATE SET alert_count = channel_stats.alert_count + 1,
      seq_max = GREATEST(channel_stats.seq_max + (NEW.seq = 0)::int, NEW.seq)
    RETURNING channel_stats.seq_max INTO top;
  IF NEW.seq = 0 THEN
    UPDATE alerts SET seq = top WHERE id = NEW.id;
  END IF;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION alertbridge_alerts_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE channel_stats SET alert_count = alert_count - 1 WHERE channel_id = OLD.channel_id;
  UPDATE read_marks SET gone_above = gone_above + 1 WHERE channel_id = OLD.channel_id AND watermark_seq < OLD.seq;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- Resurfacing moves an alert to a fresh number: the old one is gone for every watermark below it.
-- (OLD.seq = 0 is the insert trigger's own assignment.)
CREATE FUNCTION alertbridge_alerts_seq_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE channel_stats SET seq_max = GREATEST(seq_max, NEW.seq) WHERE channel_id = NEW.channel_id;
  UPDATE read_marks SET gone_above = gone_above + 1 WHERE channel_id = OLD.channel_id AND watermark_seq < OLD.seq;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER alerts_seq_moved AFTER UPDATE OF seq ON alerts FOR EACH ROW
  WHEN (OLD.seq > 0 AND NEW.seq <> OLD.seq) EXECUTE FUNCTION alertbridge_alerts_seq_moved();--> statement-breakpoint
-- Resurfacing is still written as a fresh activity_key: the alert then takes the channel's next
-- number, which fires alerts_seq_moved above. SQLite reads seq_max + 1 (one writer at a time);
-- here the number is taken by incrementing channel_stats under its row lock, so two concurrent
-- resurfacings in a channel cannot take the same one. The result is the same.
CREATE FUNCTION alertbridge_alerts_resurface() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  next_seq bigint;
BEGIN
  UPDATE channel_stats SET seq_max = seq_max + 1 WHERE channel_id = NEW.channel_id RETURNING seq_max INTO next_seq;
  UPDATE alerts SET seq = next_seq WHERE id = NEW.id;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER alerts_resurface AFTER UPDATE OF activity_key ON alerts FOR EACH ROW
  WHEN (NEW.activity_key <> OLD.activity_key) EXECUTE FUNCTION alertbridge_alerts_resurface();
-- Not mirrored: the SQLite migration's search_index_state table and full-text trigger changes.
-- They belong to SQLite's FTS5 index, and PostgreSQL has no full-text index yet (README "Running
-- more than one node"); the table is not in the drizzle schema, so schema parity is unaffected.
