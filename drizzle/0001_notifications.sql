CREATE TABLE `notification_deliveries` (
	`job_id` integer NOT NULL,
	`user_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`alert_id` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`message_id` text,
	`digest_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `notification_deliveries_due_idx` ON `notification_deliveries` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_digest_idx` ON `notification_deliveries` (`digest_id`);--> statement-breakpoint
CREATE TABLE `notification_digests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`window_end` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`message_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_digests_due_idx` ON `notification_digests` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `notification_flood_windows` (
	`user_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`window_start` integer NOT NULL,
	`window_end` integer NOT NULL,
	`sent` integer NOT NULL,
	`digest_id` integer,
	PRIMARY KEY(`user_id`, `channel_id`)
);
--> statement-breakpoint
CREATE TABLE `notification_preferences` (
	`user_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`level` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `channel_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
