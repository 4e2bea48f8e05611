CREATE TABLE `channel_stats` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`alert_count` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
