CREATE TABLE "flashes" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"session_hash" text COLLATE "C" NOT NULL,
	"sealed" text COLLATE "C" NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "flashes" ADD CONSTRAINT "flashes_session_hash_sessions_id_hash_fk" FOREIGN KEY ("session_hash") REFERENCES "public"."sessions"("id_hash") ON DELETE cascade ON UPDATE no action;