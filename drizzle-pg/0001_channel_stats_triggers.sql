-- Keep channel_stats.alert_count equal to the number of alerts per channel, whoever writes
-- (the same rule as the SQLite migration drizzle/0003_channel_stats_triggers.sql).
CREATE FUNCTION alertbridge_alerts_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO channel_stats (channel_id, alert_count) VALUES (NEW.channel_id, 1)
    ON CONFLICT (channel_id) DO UPDATE SET alert_count = channel_stats.alert_count + 1;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION alertbridge_alerts_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE channel_stats SET alert_count = alert_count - 1 WHERE channel_id = OLD.channel_id;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER alerts_count_insert AFTER INSERT ON alerts FOR EACH ROW EXECUTE FUNCTION alertbridge_alerts_count_insert();
--> statement-breakpoint
CREATE TRIGGER alerts_count_delete AFTER DELETE ON alerts FOR EACH ROW EXECUTE FUNCTION alertbridge_alerts_count_delete();
