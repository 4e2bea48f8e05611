-- What nodes of a cluster share beyond the data (PostgreSQL only: a single SQLite node keeps both
-- in memory).
--
-- rate_limits: one row per (limiter key, fixed window start), counted by one upsert per request
-- (src/db/pg/rate-limits.ts), so every node spends the same budget. UNLOGGED: counts of the current
-- minute are not worth a WAL write per request, and a crash forgetting them forgives at most one
-- window. Not in the drizzle schema (pgTable cannot declare UNLOGGED) nor in export/import: it holds
-- no data, only counters that expire within two minutes.
CREATE UNLOGGED TABLE rate_limits (
  key text COLLATE "C" NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
--> statement-breakpoint
-- Every node caches webhook channels by token (src/db/pg/webhook-channels.ts). Whatever changes what
-- a cached channel says (token rotated, signing secret, name, slug, channel or workspace removed,
-- Discord link made or dropped), and whoever changes it (a node, the admin CLI, an import), every
-- node hears it at COMMIT through this notification (src/db/pg/notify-bus.ts) and drops its cache.
-- Statement-level: PostgreSQL folds identical notifications of one transaction into one.
CREATE FUNCTION alertbridge_webhook_channels_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('alertbridge:webhook-channels', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER channels_webhook_cache AFTER UPDATE OR DELETE OR TRUNCATE ON channels FOR EACH STATEMENT EXECUTE FUNCTION alertbridge_webhook_channels_changed();
--> statement-breakpoint
CREATE TRIGGER workspaces_webhook_cache AFTER UPDATE OR DELETE OR TRUNCATE ON workspaces FOR EACH STATEMENT EXECUTE FUNCTION alertbridge_webhook_channels_changed();
--> statement-breakpoint
CREATE TRIGGER discord_links_webhook_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON discord_links FOR EACH STATEMENT EXECUTE FUNCTION alertbridge_webhook_channels_changed();
