CREATE TABLE `media_orphans` (
	`media_key` text PRIMARY KEY NOT NULL,
	`orphaned_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `media_orphans_orphaned_at_idx` ON `media_orphans` (`orphaned_at`);