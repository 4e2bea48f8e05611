-- Channel counters added up once per group commit (src/db/alert-store/channel-tally.ts).
-- The store's writers number their alerts themselves and write channel_stats
-- once per channel at the end of each batch, instead of one trigger upsert per
-- row. While a batch does that, its transaction holds the one row of
-- channel_tally_open (inserted and deleted in the same transaction, so no
-- other connection ever sees it, and a crash rolls it back with the batch):
-- the insert trigger stands aside for that transaction only. Every other
-- INSERT (a hand-written one, an import, a seed script) is counted and
-- numbered here as before.
CREATE TABLE `channel_tally_open` (`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1));
--> statement-breakpoint
DROP TRIGGER `alerts_count_insert`;
--> statement-breakpoint
CREATE TRIGGER `alerts_count_insert` AFTER INSERT ON `alerts` WHEN NOT EXISTS (SELECT 1 FROM `channel_tally_open`) BEGIN
  INSERT INTO `channel_stats` (`channel_id`, `alert_count`, `seq_max`) VALUES (NEW.`channel_id`, 1, max(NEW.`seq`, 1))
    ON CONFLICT (`channel_id`) DO UPDATE SET `alert_count` = `alert_count` + 1, `seq_max` = max(`seq_max` + (NEW.`seq` = 0), NEW.`seq`);
  UPDATE `alerts` SET `seq` = (SELECT `seq_max` FROM `channel_stats` WHERE `channel_id` = NEW.`channel_id`)
    WHERE NEW.`seq` = 0 AND rowid = NEW.rowid;
END;
--> statement-breakpoint
-- A resurfacing UPDATE that gives the alert its new number itself (the store's
-- writers, from the batch's tally) is left alone; one that only changes
-- activity_key still gets the channel's next number here.
DROP TRIGGER `alerts_resurface`;
--> statement-breakpoint
CREATE TRIGGER `alerts_resurface` AFTER UPDATE OF `activity_key` ON `alerts`
  WHEN NEW.`activity_key` <> OLD.`activity_key` AND NEW.`seq` = OLD.`seq` BEGIN
  UPDATE `alerts` SET `seq` = (SELECT `seq_max` + 1 FROM `channel_stats` WHERE `channel_id` = NEW.`channel_id`) WHERE rowid = NEW.rowid;
END;
