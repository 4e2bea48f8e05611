ALTER TABLE `workspaces` ADD `retention_days` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `retention_max_alerts` integer;--> statement-breakpoint
ALTER TABLE `channels` ADD `retention_days` integer;--> statement-breakpoint
ALTER TABLE `channels` ADD `retention_max_alerts` integer;--> statement-breakpoint
CREATE INDEX `read_exceptions_alert_idx` ON `read_exceptions` (`alert_id`);