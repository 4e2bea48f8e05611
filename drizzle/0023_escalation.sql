CREATE TABLE `alert_escalations` (
	`alert_id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`armed_at` integer NOT NULL,
	`step` integer NOT NULL,
	`due_at` integer,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_escalations_due_idx` ON `alert_escalations` (`due_at`);--> statement-breakpoint
CREATE TABLE `escalation_cursor` (
	`name` text PRIMARY KEY NOT NULL,
	`last_event_id` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `escalation_policies` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`min_level` text NOT NULL,
	`after_ms` integer NOT NULL,
	`every_ms` integer NOT NULL,
	`times` integer NOT NULL,
	`then_json` text,
	`updated_by` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
ALTER TABLE `notification_jobs` ADD `escalation_step` integer;--> statement-breakpoint
ALTER TABLE `notification_jobs` ADD `escalation_steps` integer;--> statement-breakpoint
ALTER TABLE `notification_jobs` ADD `escalation_to_json` text;