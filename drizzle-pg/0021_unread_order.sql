-- The unread-only feed by index: the PostgreSQL side of drizzle/0027_unread_order.sql, same column,
-- rule and index (see there and docs/decisions.md, "Unread-only feed"). `out_of_order` is true for
-- a row whose id order and seq order may disagree with the channel's other rows; kept by the
-- trigger below and left out of the drizzle schema, so export/import recompute it.
ALTER TABLE "alerts" ADD COLUMN "out_of_order" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "alerts" SET "out_of_order" = true FROM (
  SELECT "id", "seq",
    max("seq") OVER (PARTITION BY "channel_id" ORDER BY "id" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS below,
    min("seq") OVER (PARTITION BY "channel_id" ORDER BY "id" ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS above
  FROM "alerts") AS r
  WHERE "alerts"."id" = r."id" AND (r."seq" <= coalesce(r.below, -1) OR r."seq" >= coalesce(r.above, 9223372036854775807));--> statement-breakpoint
CREATE INDEX "alerts_channel_read_order_idx" ON "alerts" USING btree ("channel_id", "out_of_order", "seq");--> statement-breakpoint
-- A BEFORE trigger sees the rows of the same statement processed before this one, and the rows
-- of transactions that committed before it took channel_stats' row lock (READ COMMITTED), so
-- every row that took a smaller number is visible when the row is checked.
CREATE FUNCTION alertbridge_alerts_out_of_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.seq > 0 AND NOT NEW.out_of_order AND (TG_OP = 'INSERT' OR NEW.seq <> OLD.seq) THEN
    -- Written as "the channel's largest id / in-order seq" (ORDER BY … LIMIT 1), the shape that takes
    -- the index whatever the statistics: a plan cached while the table was empty must not scan it.
    -- (An updated row's own old seq is below its new one, so it never counts against itself.)
    NEW.out_of_order := COALESCE((SELECT x.id FROM alerts x WHERE x.channel_id = NEW.channel_id
        ORDER BY x.channel_id DESC, x.id DESC LIMIT 1) > NEW.id, false)
      OR COALESCE((SELECT x.seq FROM alerts x WHERE x.channel_id = NEW.channel_id AND x.out_of_order = false
        ORDER BY x.channel_id DESC, x.out_of_order DESC, x.seq DESC LIMIT 1) >= NEW.seq, false);
  END IF;
  RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER alerts_out_of_order BEFORE INSERT OR UPDATE OF seq ON alerts FOR EACH ROW EXECUTE FUNCTION alertbridge_alerts_out_of_order();
