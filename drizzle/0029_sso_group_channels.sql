CREATE TABLE `sso_group_channels` (
	`workspace_id` text NOT NULL,
	`group_name` text NOT NULL,
	`channel_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `group_name`, `channel_id`),
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`,`group_name`) REFERENCES `sso_group_mappings`(`workspace_id`,`group_name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_group_channels_channel_idx` ON `sso_group_channels` (`channel_id`);--> statement-breakpoint
CREATE TABLE `sso_managed_channel_access` (
	`channel_id` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`channel_id`, `user_id`),
	FOREIGN KEY (`channel_id`,`user_id`) REFERENCES `channel_members`(`channel_id`,`user_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_managed_channel_access_user_idx` ON `sso_managed_channel_access` (`user_id`);--> statement-breakpoint
CREATE TABLE `sso_member_groups` (
	`workspace_id` text NOT NULL,
	`group_name` text NOT NULL,
	`user_id` text NOT NULL,
	PRIMARY KEY(`workspace_id`, `group_name`, `user_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`,`group_name`) REFERENCES `sso_group_mappings`(`workspace_id`,`group_name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sso_member_groups_user_idx` ON `sso_member_groups` (`user_id`);