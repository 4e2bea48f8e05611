CREATE TABLE "alert_escalations" (
	"alert_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"channel_id" text COLLATE "C" NOT NULL,
	"armed_at" bigint NOT NULL,
	"step" integer NOT NULL,
	"due_at" bigint
);
--> statement-breakpoint
CREATE TABLE "escalation_cursor" (
	"name" text COLLATE "C" PRIMARY KEY NOT NULL,
	"last_event_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "escalation_policies" (
	"channel_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"min_level" text COLLATE "C" NOT NULL,
	"after_ms" bigint NOT NULL,
	"every_ms" bigint NOT NULL,
	"times" integer NOT NULL,
	"then_json" text COLLATE "C",
	"updated_by" text COLLATE "C",
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_jobs" ADD COLUMN "escalation_step" integer;--> statement-breakpoint
ALTER TABLE "notification_jobs" ADD COLUMN "escalation_steps" integer;--> statement-breakpoint
ALTER TABLE "notification_jobs" ADD COLUMN "escalation_to_json" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "alert_escalations" ADD CONSTRAINT "alert_escalations_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "escalation_policies" ADD CONSTRAINT "escalation_policies_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "escalation_policies" ADD CONSTRAINT "escalation_policies_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_escalations_due_idx" ON "alert_escalations" USING btree ("due_at");