-- Keep channel_stats.alert_count equal to the number of alerts per channel,
-- whoever writes (webhook ingest, Discord bridge, deletes).
INSERT INTO `channel_stats` (`channel_id`, `alert_count`)
  SELECT `channel_id`, count(*) FROM `alerts` GROUP BY `channel_id`;
--> statement-breakpoint
CREATE TRIGGER `alerts_count_insert` AFTER INSERT ON `alerts` BEGIN
  INSERT INTO `channel_stats` (`channel_id`, `alert_count`) VALUES (NEW.`channel_id`, 1)
    ON CONFLICT (`channel_id`) DO UPDATE SET `alert_count` = `alert_count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `alerts_count_delete` AFTER DELETE ON `alerts` BEGIN
  UPDATE `channel_stats` SET `alert_count` = `alert_count` - 1 WHERE `channel_id` = OLD.`channel_id`;
END;
