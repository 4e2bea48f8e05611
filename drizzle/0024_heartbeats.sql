CREATE TABLE `heartbeat_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`ping_uuid` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`period_ms` integer,
	`cron` text,
	`time_zone` text,
	`grace_ms` integer NOT NULL,
	`status` text NOT NULL,
	`last_ping_at` integer,
	`last_start_at` integer,
	`last_start_rid` text,
	`last_duration_ms` integer,
	`down_at` integer,
	`down_since` integer,
	`alerted_since` integer,
	`ping_count` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `heartbeat_checks_uuid_uq` ON `heartbeat_checks` (`ping_uuid`);--> statement-breakpoint
CREATE UNIQUE INDEX `heartbeat_checks_ws_slug_uq` ON `heartbeat_checks` (`workspace_id`,`slug`);--> statement-breakpoint
CREATE INDEX `heartbeat_checks_channel_idx` ON `heartbeat_checks` (`channel_id`);--> statement-breakpoint
CREATE INDEX `heartbeat_checks_down_at_idx` ON `heartbeat_checks` (`down_at`);--> statement-breakpoint
CREATE TABLE `heartbeat_ping_keys` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`ping_key` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `heartbeat_ping_keys_key_uq` ON `heartbeat_ping_keys` (`ping_key`);--> statement-breakpoint
CREATE TABLE `heartbeat_pings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`check_id` text NOT NULL,
	`n` integer NOT NULL,
	`kind` text NOT NULL,
	`exit_status` integer,
	`rid` text,
	`method` text NOT NULL,
	`user_agent` text,
	`body` text,
	`duration_ms` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`check_id`) REFERENCES `heartbeat_checks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `heartbeat_pings_check_idx` ON `heartbeat_pings` (`check_id`,`n`);