CREATE TABLE "user_settings" (
	"user_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"feed_density" text COLLATE "C" DEFAULT 'cards' NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_settings" ADD CONSTRAINT "user_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;