CREATE TABLE "alert_groups" (
	"channel_id" text COLLATE "C" NOT NULL,
	"group_key" text COLLATE "C" NOT NULL,
	"alert_id" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"state_fingerprint" text COLLATE "C" NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "alert_groups_channel_id_group_key_pk" PRIMARY KEY("channel_id","group_key")
);
--> statement-breakpoint
CREATE TABLE "push_deliveries" (
	"job_id" bigint NOT NULL,
	"subscription_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"channel_id" text COLLATE "C" NOT NULL,
	"alert_id" text COLLATE "C" NOT NULL,
	"kind" text COLLATE "C" NOT NULL,
	"state" text COLLATE "C" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint NOT NULL,
	"last_error" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "push_deliveries_job_id_subscription_id_pk" PRIMARY KEY("job_id","subscription_id")
);
--> statement-breakpoint
CREATE TABLE "push_flood_windows" (
	"user_id" text COLLATE "C" NOT NULL,
	"channel_id" text COLLATE "C" NOT NULL,
	"window_start" bigint NOT NULL,
	"window_end" bigint NOT NULL,
	"sent" integer NOT NULL,
	"folded" integer NOT NULL,
	CONSTRAINT "push_flood_windows_user_id_channel_id_pk" PRIMARY KEY("user_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"endpoint" text COLLATE "C" NOT NULL,
	"p256dh" text COLLATE "C" NOT NULL,
	"auth" text COLLATE "C" NOT NULL,
	"device" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"last_success_at" bigint,
	"last_error" text COLLATE "C",
	CONSTRAINT "push_subscriptions_endpoint_unique" UNIQUE("endpoint")
);
--> statement-breakpoint
ALTER TABLE "alert_groups" ADD CONSTRAINT "alert_groups_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_groups" ADD CONSTRAINT "alert_groups_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_deliveries" ADD CONSTRAINT "push_deliveries_subscription_id_push_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."push_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_groups_alert_idx" ON "alert_groups" USING btree ("alert_id");--> statement-breakpoint
CREATE INDEX "push_deliveries_due_idx" ON "push_deliveries" USING btree ("state","next_attempt_at");--> statement-breakpoint
CREATE INDEX "push_subscriptions_user_idx" ON "push_subscriptions" USING btree ("user_id");