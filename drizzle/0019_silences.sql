CREATE TABLE `silences` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`channel_id` text,
	`level` text,
	`source` text,
	`title_contains` text,
	`fields_json` text,
	`starts_at` integer NOT NULL,
	`ends_at` integer,
	`weekly_days` integer,
	`weekly_start` integer,
	`weekly_end` integer,
	`time_zone` text,
	`comment` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`expired_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `silences_workspace_idx` ON `silences` (`workspace_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `read_only` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `alerts` ADD `silenced_by` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `silence_comment` text;