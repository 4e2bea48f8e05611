CREATE TABLE "oidc_identities" (
	"issuer" text COLLATE "C" NOT NULL,
	"subject" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "oidc_identities_issuer_subject_pk" PRIMARY KEY("issuer","subject")
);
--> statement-breakpoint
CREATE TABLE "oidc_sessions" (
	"session_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"issuer" text COLLATE "C" NOT NULL,
	"subject" text COLLATE "C" NOT NULL,
	"sid" text COLLATE "C",
	"via" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_break_glass" (
	"user_id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_group_mappings" (
	"workspace_id" text COLLATE "C" NOT NULL,
	"group_name" text COLLATE "C" NOT NULL,
	"role" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "sso_group_mappings_workspace_id_group_name_pk" PRIMARY KEY("workspace_id","group_name")
);
--> statement-breakpoint
CREATE TABLE "sso_managed_memberships" (
	"workspace_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "sso_managed_memberships_workspace_id_user_id_pk" PRIMARY KEY("workspace_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "oidc_identities" ADD CONSTRAINT "oidc_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_sessions" ADD CONSTRAINT "oidc_sessions_session_hash_sessions_id_hash_fk" FOREIGN KEY ("session_hash") REFERENCES "public"."sessions"("id_hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_break_glass" ADD CONSTRAINT "sso_break_glass_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_group_mappings" ADD CONSTRAINT "sso_group_mappings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_managed_memberships" ADD CONSTRAINT "sso_managed_memberships_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_managed_memberships" ADD CONSTRAINT "sso_managed_memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_identities_user_uq" ON "oidc_identities" USING btree ("user_id","issuer");--> statement-breakpoint
CREATE INDEX "oidc_sessions_sub_idx" ON "oidc_sessions" USING btree ("issuer","subject");