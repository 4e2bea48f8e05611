CREATE TABLE `route_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`route_id` text NOT NULL,
	`alert_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`event` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`last_status` integer,
	`last_error` text,
	`last_attempt_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`route_id`) REFERENCES `routes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `route_deliveries_due_idx` ON `route_deliveries` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `route_deliveries_alert_idx` ON `route_deliveries` (`alert_id`);--> statement-breakpoint
CREATE INDEX `route_deliveries_order_idx` ON `route_deliveries` (`route_id`,`alert_id`,`id`);--> statement-breakpoint
CREATE TABLE `route_messages` (
	`route_id` text NOT NULL,
	`alert_id` text NOT NULL,
	`message_ref` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`route_id`, `alert_id`),
	FOREIGN KEY (`route_id`) REFERENCES `routes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `routes` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`kind` text NOT NULL,
	`target_sealed` text NOT NULL,
	`key_id` text NOT NULL,
	`target_hint` text NOT NULL,
	`min_level` text NOT NULL,
	`events` text NOT NULL,
	`source` text,
	`fields_json` text NOT NULL,
	`state` text NOT NULL,
	`paused_reason` text,
	`failing_since` integer,
	`rate_per_minute` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `routes_channel_idx` ON `routes` (`channel_id`);