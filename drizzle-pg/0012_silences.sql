CREATE TABLE "silences" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"workspace_id" text COLLATE "C" NOT NULL,
	"channel_id" text COLLATE "C",
	"level" text COLLATE "C",
	"source" text COLLATE "C",
	"title_contains" text COLLATE "C",
	"fields_json" text COLLATE "C",
	"starts_at" bigint NOT NULL,
	"ends_at" bigint,
	"weekly_days" integer,
	"weekly_start" integer,
	"weekly_end" integer,
	"time_zone" text COLLATE "C",
	"comment" text COLLATE "C" NOT NULL,
	"created_by" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"expired_at" bigint
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "silenced_by" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "silence_comment" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "silences" ADD CONSTRAINT "silences_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "silences" ADD CONSTRAINT "silences_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "silences" ADD CONSTRAINT "silences_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "silences_workspace_idx" ON "silences" USING btree ("workspace_id","created_at");