CREATE TABLE `flashes` (
	`id` text PRIMARY KEY NOT NULL,
	`session_hash` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`session_hash`) REFERENCES `sessions`(`id_hash`) ON UPDATE no action ON DELETE cascade
);
