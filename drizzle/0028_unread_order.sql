-- The unread-only feed by index (docs/decisions.md, "Unread-only feed"). The feed is ordered by id,
-- read state by seq; the two orders agree for almost every row. `out_of_order` marks the rows for
-- which they may not (a resurfaced alert: old id, new number; a chat message backfilled with an
-- older snowflake id; rows imported out of order): a row stays 0 only if, when it took its number,
-- both its id and its seq were above every other in-order row of its channel, so the in-order rows
-- sort the same by id and by seq. Kept by the triggers below, never written by the application and
-- left out of the drizzle schema (like the search columns), so export/import recompute it.
ALTER TABLE `alerts` ADD COLUMN `out_of_order` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Existing rows: in order when their seq is above every seq of a smaller id and below every seq of a larger one.
UPDATE `alerts` SET `out_of_order` = 1 WHERE rowid IN (
  SELECT rid FROM (
    SELECT rowid AS rid, `seq`,
      max(`seq`) OVER (PARTITION BY `channel_id` ORDER BY `id` ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS below,
      min(`seq`) OVER (PARTITION BY `channel_id` ORDER BY `id` ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS above
    FROM `alerts`)
  WHERE `seq` <= coalesce(below, -1) OR `seq` >= coalesce(above, 9223372036854775807));
--> statement-breakpoint
-- The read order: the watermark's boundary among in-order rows, and the out-of-order rows above a watermark.
CREATE INDEX `alerts_channel_read_order_idx` ON `alerts` (`channel_id`, `out_of_order`, `seq`);
--> statement-breakpoint
CREATE TRIGGER `alerts_out_of_order_insert` AFTER INSERT ON `alerts`
  WHEN NEW.`seq` > 0 AND NEW.`out_of_order` = 0 AND (
    EXISTS (SELECT 1 FROM `alerts` x WHERE x.`channel_id` = NEW.`channel_id` AND x.`id` > NEW.`id`)
    OR EXISTS (SELECT 1 FROM `alerts` x WHERE x.`channel_id` = NEW.`channel_id` AND x.`out_of_order` = 0 AND x.`seq` >= NEW.`seq` AND x.`id` <> NEW.`id`)) BEGIN
  UPDATE `alerts` SET `out_of_order` = 1 WHERE rowid = NEW.rowid;
END;
--> statement-breakpoint
-- A new number (resurfacing, or the insert trigger's assignment for seq = 0) is checked the same way.
CREATE TRIGGER `alerts_out_of_order_seq` AFTER UPDATE OF `seq` ON `alerts`
  WHEN NEW.`seq` <> OLD.`seq` AND NEW.`out_of_order` = 0 AND (
    EXISTS (SELECT 1 FROM `alerts` x WHERE x.`channel_id` = NEW.`channel_id` AND x.`id` > NEW.`id`)
    OR EXISTS (SELECT 1 FROM `alerts` x WHERE x.`channel_id` = NEW.`channel_id` AND x.`out_of_order` = 0 AND x.`seq` >= NEW.`seq` AND x.`id` <> NEW.`id`)) BEGIN
  UPDATE `alerts` SET `out_of_order` = 1 WHERE rowid = NEW.rowid;
END;
