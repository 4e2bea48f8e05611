CREATE TABLE `alert_groups` (
	`channel_id` text NOT NULL,
	`group_key` text NOT NULL,
	`alert_id` text NOT NULL,
	`status` text NOT NULL,
	`state_fingerprint` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `group_key`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_groups_alert_idx` ON `alert_groups` (`alert_id`);