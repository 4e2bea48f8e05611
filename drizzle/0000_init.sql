CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`hint` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_uq` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_ws_idx` ON `api_tokens` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `memberships` (
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `user_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (lower("email"));--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `channel_members` (
	`channel_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `user_id`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channel_members_user_idx` ON `channel_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`icon` text NOT NULL,
	`is_private` integer DEFAULT false NOT NULL,
	`webhook_token` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channels_ws_slug_uq` ON `channels` (`workspace_id`,`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `channels_webhook_token_uq` ON `channels` (`webhook_token`);--> statement-breakpoint
CREATE TABLE `discord_links` (
	`channel_id` text PRIMARY KEY NOT NULL,
	`discord_channel_id` text NOT NULL,
	`guild_id` text,
	`guild_name` text,
	`discord_channel_name` text,
	`synced_until` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `discord_links_discord_channel_uq` ON `discord_links` (`discord_channel_id`);--> statement-breakpoint
CREATE TABLE `alert_attachments` (
	`alert_id` text NOT NULL,
	`position` integer NOT NULL,
	`media_key` text NOT NULL,
	`mime` text NOT NULL,
	`kind` text NOT NULL,
	`name` text,
	`size` integer NOT NULL,
	PRIMARY KEY(`alert_id`, `position`),
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_attachments_media_idx` ON `alert_attachments` (`media_key`);--> statement-breakpoint
CREATE TABLE `alert_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`channel_id` text NOT NULL,
	`alert_id` text NOT NULL,
	`type` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_events_created_idx` ON `alert_events` (`created_at`);--> statement-breakpoint
CREATE TABLE `alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`level` text DEFAULT 'INFO' NOT NULL,
	`emoji` text DEFAULT '' NOT NULL,
	`message` text,
	`fields_json` text,
	`link_url` text,
	`link_text` text,
	`source` text,
	`metadata_json` text,
	`actor_json` text,
	`workflow_run_id` text,
	`workflow_state` text,
	`workflow_steps_json` text,
	`workflow_error` text,
	`external_id` text,
	`author_json` text,
	`reply_to_json` text,
	`activity_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alerts_channel_id_idx` ON `alerts` (`channel_id`,`id`);--> statement-breakpoint
CREATE INDEX `alerts_channel_level_id_idx` ON `alerts` (`channel_id`,`level`,`id`);--> statement-breakpoint
CREATE INDEX `alerts_channel_activity_idx` ON `alerts` (`channel_id`,`activity_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_channel_run_uq` ON `alerts` (`channel_id`,`workflow_run_id`) WHERE "alerts"."workflow_run_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_channel_external_uq` ON `alerts` (`channel_id`,`external_id`) WHERE "alerts"."external_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`channel_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer NOT NULL,
	`response_json` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `key`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `idempotency_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `notification_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alert_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`kind` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_jobs_due_idx` ON `notification_jobs` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `read_exceptions` (
	`user_id` text NOT NULL,
	`alert_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`activity_key` text NOT NULL,
	`is_read` integer NOT NULL,
	PRIMARY KEY(`user_id`, `alert_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `read_exceptions_user_channel_idx` ON `read_exceptions` (`user_id`,`channel_id`);--> statement-breakpoint
CREATE TABLE `read_marks` (
	`user_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`watermark` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `channel_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`workspace_id` text NOT NULL,
	`month` text NOT NULL,
	`events` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `month`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
