CREATE TABLE "sso_group_channels" (
	"workspace_id" text COLLATE "C" NOT NULL,
	"group_name" text COLLATE "C" NOT NULL,
	"channel_id" text COLLATE "C" NOT NULL,
	CONSTRAINT "sso_group_channels_workspace_id_group_name_channel_id_pk" PRIMARY KEY("workspace_id","group_name","channel_id")
);
--> statement-breakpoint
CREATE TABLE "sso_managed_channel_access" (
	"channel_id" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "sso_managed_channel_access_channel_id_user_id_pk" PRIMARY KEY("channel_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "sso_member_groups" (
	"workspace_id" text COLLATE "C" NOT NULL,
	"group_name" text COLLATE "C" NOT NULL,
	"user_id" text COLLATE "C" NOT NULL,
	CONSTRAINT "sso_member_groups_workspace_id_group_name_user_id_pk" PRIMARY KEY("workspace_id","group_name","user_id")
);
--> statement-breakpoint
ALTER TABLE "sso_group_channels" ADD CONSTRAINT "sso_group_channels_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_group_channels" ADD CONSTRAINT "sso_group_channels_mapping_fk" FOREIGN KEY ("workspace_id","group_name") REFERENCES "public"."sso_group_mappings"("workspace_id","group_name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_managed_channel_access" ADD CONSTRAINT "sso_managed_channel_access_member_fk" FOREIGN KEY ("channel_id","user_id") REFERENCES "public"."channel_members"("channel_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_member_groups" ADD CONSTRAINT "sso_member_groups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_member_groups" ADD CONSTRAINT "sso_member_groups_mapping_fk" FOREIGN KEY ("workspace_id","group_name") REFERENCES "public"."sso_group_mappings"("workspace_id","group_name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sso_group_channels_channel_idx" ON "sso_group_channels" USING btree ("channel_id");--> statement-breakpoint
CREATE INDEX "sso_managed_channel_access_user_idx" ON "sso_managed_channel_access" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sso_member_groups_user_idx" ON "sso_member_groups" USING btree ("user_id");