CREATE TABLE "chat_threads" (
	"channel_id" text COLLATE "C" NOT NULL,
	"thread_id" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"tags_json" text COLLATE "C" DEFAULT '[]' NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "chat_threads_channel_id_thread_id_pk" PRIMARY KEY("channel_id","thread_id")
);
--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "thread_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "thread_json" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "tags_json" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "reactions_json" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "reaction_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_threads" ADD CONSTRAINT "chat_threads_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_channel_thread_idx" ON "alerts" USING btree ("channel_id","thread_id","id") WHERE "alerts"."thread_id" IS NOT NULL;