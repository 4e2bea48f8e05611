CREATE TABLE `alert_action_uses` (
	`nonce` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_action_uses_expires_idx` ON `alert_action_uses` (`expires_at`);--> statement-breakpoint
CREATE TABLE `alert_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alert_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`action` text NOT NULL,
	`actor_id` text,
	`actor_name` text NOT NULL,
	`via` text NOT NULL,
	`snoozed_until` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_history_alert_idx` ON `alert_history` (`alert_id`,`id`);--> statement-breakpoint
CREATE TABLE `feed_preferences` (
	`user_id` text PRIMARY KEY NOT NULL,
	`status_filter` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `alerts` ADD `dedup_key` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `status` text DEFAULT 'open' NOT NULL;--> statement-breakpoint
ALTER TABLE `alerts` ADD `acknowledged_at` integer;--> statement-breakpoint
ALTER TABLE `alerts` ADD `acknowledged_by_json` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `resolved_at` integer;--> statement-breakpoint
ALTER TABLE `alerts` ADD `resolved_by_json` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `snoozed_until` integer;--> statement-breakpoint
ALTER TABLE `alerts` ADD `occurrences` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_channel_dedup_uq` ON `alerts` (`channel_id`,`dedup_key`) WHERE "alerts"."dedup_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `alerts_channel_status_id_idx` ON `alerts` (`channel_id`,`status`,`id`);