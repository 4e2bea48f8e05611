CREATE TABLE `chat_threads` (
	`channel_id` text NOT NULL,
	`thread_id` text NOT NULL,
	`name` text NOT NULL,
	`tags_json` text DEFAULT '[]' NOT NULL,
	`archived` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `thread_id`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `alerts` ADD `thread_id` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `thread_json` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `tags_json` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `reactions_json` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `reaction_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `alerts_channel_thread_idx` ON `alerts` (`channel_id`,`thread_id`,`id`) WHERE "alerts"."thread_id" IS NOT NULL;