CREATE TABLE `quiet_digests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`due_at` integer NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`message_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quiet_digests_user_due_uq` ON `quiet_digests` (`user_id`,`due_at`);--> statement-breakpoint
CREATE INDEX `quiet_digests_due_idx` ON `quiet_digests` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `quiet_holds` (
	`digest_id` integer NOT NULL,
	`job_id` integer NOT NULL,
	`alert_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`digest_id`, `job_id`)
);
--> statement-breakpoint
CREATE TABLE `quiet_hours` (
	`user_id` text PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL,
	`start_minute` integer NOT NULL,
	`end_minute` integer NOT NULL,
	`min_level` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
