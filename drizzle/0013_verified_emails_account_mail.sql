CREATE TABLE `account_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`kind` text NOT NULL,
	`sealed_link` text,
	`link_expires_at` integer NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`claimed_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `account_emails_due_idx` ON `account_emails` (`state`,`next_attempt_at`);--> statement-breakpoint
DROP INDEX `users_email_uq`;--> statement-breakpoint
ALTER TABLE `users` ADD `email_verified` integer DEFAULT true NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `users_verified_email_uq` ON `users` (lower("email")) WHERE "users"."email_verified" = 1;--> statement-breakpoint
CREATE INDEX `users_email_idx` ON `users` (lower("email"));