-- Unread counts in constant time (README "Read state that scales").
-- Every alert gets a per-channel sequence number (alerts.seq) at insert and a
-- fresh one when it resurfaces; channel_stats.seq_max is the last one handed
-- out. A user's watermark is a sequence number, and read_marks.gone_above
-- counts the numbers above it that no longer hold an alert (deleted, or moved
-- away by resurfacing), kept by the triggers below whoever deletes (webhook
-- delete, retention, chat delete, channel cascade, a hand-written DELETE).
-- Unread = seq_max - watermark_seq - gone_above, plus the user's exceptions.
ALTER TABLE `alerts` ADD `seq` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `channel_stats` ADD `seq_max` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `read_marks` ADD `watermark_seq` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `read_marks` ADD `gone_above` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `read_exceptions` ADD `seq` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Backfill: number each channel's alerts 1..n in the old activity-key order, so
-- the sequence order is the read order the watermarks were set against.
UPDATE `alerts` SET `seq` = r.n
  FROM (SELECT rowid AS rid, row_number() OVER (PARTITION BY `channel_id` ORDER BY `activity_key`, `id`) AS n FROM `alerts`) AS r
  WHERE `alerts`.rowid = r.rid;
--> statement-breakpoint
INSERT INTO `channel_stats` (`channel_id`, `alert_count`) SELECT `id`, 0 FROM `channels` WHERE true
  ON CONFLICT (`channel_id`) DO NOTHING;
--> statement-breakpoint
UPDATE `channel_stats` SET
  `alert_count` = (SELECT count(*) FROM `alerts` a WHERE a.`channel_id` = `channel_stats`.`channel_id`),
  `seq_max` = (SELECT count(*) FROM `alerts` a WHERE a.`channel_id` = `channel_stats`.`channel_id`);
--> statement-breakpoint
-- Numbers are dense after the backfill, so the alerts at or below an old
-- watermark are exactly numbers 1..count, and nothing above it is gone yet.
UPDATE `read_marks` SET
  `watermark_seq` = (SELECT count(*) FROM `alerts` a WHERE a.`channel_id` = `read_marks`.`channel_id` AND a.`activity_key` <= `read_marks`.`watermark`),
  `gone_above` = 0;
--> statement-breakpoint
-- An exception whose activity key no longer matches its alert was already void.
DELETE FROM `read_exceptions` WHERE NOT EXISTS
  (SELECT 1 FROM `alerts` a WHERE a.`id` = `read_exceptions`.`alert_id` AND a.`activity_key` = `read_exceptions`.`activity_key`);
--> statement-breakpoint
UPDATE `read_exceptions` SET `seq` = (SELECT a.`seq` FROM `alerts` a WHERE a.`id` = `read_exceptions`.`alert_id`);
--> statement-breakpoint
ALTER TABLE `read_exceptions` DROP COLUMN `activity_key`;
--> statement-breakpoint
ALTER TABLE `read_marks` DROP COLUMN `watermark`;
--> statement-breakpoint
CREATE INDEX `read_marks_channel_idx` ON `read_marks` (`channel_id`,`watermark_seq`);
--> statement-breakpoint
DROP TRIGGER `alerts_count_insert`;
--> statement-breakpoint
-- The writers give seq (seq_max + 1, read in the same statement); an INSERT
-- that does not (seq = 0) gets the next number here.
CREATE TRIGGER `alerts_count_insert` AFTER INSERT ON `alerts` BEGIN
  INSERT INTO `channel_stats` (`channel_id`, `alert_count`, `seq_max`) VALUES (NEW.`channel_id`, 1, max(NEW.`seq`, 1))
    ON CONFLICT (`channel_id`) DO UPDATE SET `alert_count` = `alert_count` + 1, `seq_max` = max(`seq_max` + (NEW.`seq` = 0), NEW.`seq`);
  UPDATE `alerts` SET `seq` = (SELECT `seq_max` FROM `channel_stats` WHERE `channel_id` = NEW.`channel_id`)
    WHERE NEW.`seq` = 0 AND rowid = NEW.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `alerts_count_delete`;
--> statement-breakpoint
CREATE TRIGGER `alerts_count_delete` AFTER DELETE ON `alerts` BEGIN
  UPDATE `channel_stats` SET `alert_count` = `alert_count` - 1 WHERE `channel_id` = OLD.`channel_id`;
  UPDATE `read_marks` SET `gone_above` = `gone_above` + 1 WHERE `channel_id` = OLD.`channel_id` AND `watermark_seq` < OLD.`seq`;
END;
--> statement-breakpoint
-- Resurfacing moves an alert to a fresh number: the old one is gone for every
-- watermark below it. (OLD.seq = 0 is the insert trigger's own assignment.)
CREATE TRIGGER `alerts_seq_moved` AFTER UPDATE OF `seq` ON `alerts` WHEN OLD.`seq` > 0 AND NEW.`seq` <> OLD.`seq` BEGIN
  UPDATE `channel_stats` SET `seq_max` = max(`seq_max`, NEW.`seq`) WHERE `channel_id` = NEW.`channel_id`;
  UPDATE `read_marks` SET `gone_above` = `gone_above` + 1 WHERE `channel_id` = OLD.`channel_id` AND `watermark_seq` < OLD.`seq`;
END;
--> statement-breakpoint
-- Resurfacing is still written as a fresh activity_key (webhook runs, alert
-- groups, whoever): the alert then takes the channel's next number, which
-- fires alerts_seq_moved above. One place, so no writer can forget it.
CREATE TRIGGER `alerts_resurface` AFTER UPDATE OF `activity_key` ON `alerts` WHEN NEW.`activity_key` <> OLD.`activity_key` BEGIN
  UPDATE `alerts` SET `seq` = (SELECT `seq_max` + 1 FROM `channel_stats` WHERE `channel_id` = NEW.`channel_id`) WHERE rowid = NEW.rowid;
END;
--> statement-breakpoint
-- Read state no longer orders by activity_key: its index only cost every insert.
DROP INDEX `alerts_channel_activity_idx`;
--> statement-breakpoint
-- Search indexing leaves the write transaction (src/db/alert-store/search-indexer.ts):
-- alerts with rowid <= indexed_upto are in the index, newer ones are pending
-- until the indexer's next pass, which every search runs first. Everything
-- stored so far was indexed by the triggers of migration 0007.
CREATE TABLE `search_index_state` (`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1), `indexed_upto` integer NOT NULL);
--> statement-breakpoint
INSERT INTO `search_index_state` (`id`, `indexed_upto`) VALUES (1, COALESCE((SELECT max(rowid) FROM `alerts`), 0));
--> statement-breakpoint
DROP TRIGGER `alerts_fts_insert`;
--> statement-breakpoint
-- Only an insert that reuses an indexed rowid (the largest one, after its row was deleted) is indexed here.
CREATE TRIGGER `alerts_fts_insert` AFTER INSERT ON `alerts`
  WHEN NEW.rowid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1) BEGIN
  INSERT INTO `alerts_fts` (rowid, title, body, actor)
    SELECT rid, title, body, actor FROM `alerts_search_source` WHERE rid = NEW.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `alerts_fts_delete`;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_delete` BEFORE DELETE ON `alerts`
  WHEN OLD.rowid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1) BEGIN
  INSERT INTO `alerts_fts` (`alerts_fts`, rowid, title, body, actor)
    SELECT 'delete', rid, title, body, actor FROM `alerts_search_source` WHERE rid = OLD.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `alerts_fts_update_old`;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_update_old` BEFORE UPDATE OF title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json ON `alerts`
  WHEN OLD.rowid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1) BEGIN
  INSERT INTO `alerts_fts` (`alerts_fts`, rowid, title, body, actor)
    SELECT 'delete', rid, title, body, actor FROM `alerts_search_source` WHERE rid = OLD.rowid;
END;
--> statement-breakpoint
DROP TRIGGER `alerts_fts_update_new`;
--> statement-breakpoint
CREATE TRIGGER `alerts_fts_update_new` AFTER UPDATE OF title, message, fields_json, workflow_steps_json, workflow_error, link_text, source, actor_json, author_json ON `alerts`
  WHEN NEW.rowid <= (SELECT `indexed_upto` FROM `search_index_state` WHERE `id` = 1) BEGIN
  INSERT INTO `alerts_fts` (rowid, title, body, actor)
    SELECT rid, title, body, actor FROM `alerts_search_source` WHERE rid = NEW.rowid;
END;
