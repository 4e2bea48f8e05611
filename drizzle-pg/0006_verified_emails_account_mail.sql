CREATE TABLE "account_emails" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"to_address" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"sealed_link" text COLLATE "C",
	"link_expires_at" bigint NOT NULL,
	"state" text COLLATE "C" NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"claimed_at" bigint,
	"last_error" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
DROP INDEX "users_email_uq";--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email_verified" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX "account_emails_due_idx" ON "account_emails" USING btree ("state","next_attempt_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_verified_email_uq" ON "users" USING btree (lower("email")) WHERE "users"."email_verified";--> statement-breakpoint
CREATE INDEX "users_email_idx" ON "users" USING btree (lower("email"));