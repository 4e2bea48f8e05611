/**
 * Constants only, in shared/ because statements written once for both engines name them (a SQLite
 * service must not load src/db/pg/).
 *
 * PostgreSQL advisory lock keys, one place so that no two uses collide. Each is a constant bigint
 * in Alertbridge's own range (0x414c4252 = "ALBR" in the high 32 bits), far from other
 * applications sharing the server that pick small numbers.
 */
const BASE = 0x414c4252n << 32n;

/** Session-level, held while one node applies migrations at start-up (src/db/pg/migrate.ts). */
export const MIGRATION_LOCK = String(BASE + 1n);

/**
 * Transaction-level, around every append to `alert_events` (the live stream's change log): see the
 * comment on `alertEvents` in src/db/shared/schema/alerts.ts. Not used yet: the PostgreSQL write path
 * is not built.
 */
export const CHANGE_LOG_LOCK = String(BASE + 2n);

/** Transaction-level, held by `admin import` into PostgreSQL, so two imports cannot interleave. */
export const IMPORT_LOCK = String(BASE + 3n);

/**
 * Session-level, held by the one node that runs the singletons (Discord gateway, pruning, retention,
 * digests): src/db/pg/leader.ts. Not wired yet.
 */
export const LEADER_LOCK = String(BASE + 4n);

/**
 * Transaction-level, around connecting a channel to Discord (src/db/pg/discord-link-rows.ts): the
 * check ("is either side linked already?") and the insert happen as one step across nodes, as
 * SQLite's BEGIN IMMEDIATE makes them on one file.
 */
export const DISCORD_LINK_LOCK = String(BASE + 5n);

/**
 * Transaction-level, around the first start's set-up (src/db/pg/first-start.ts, `PgFirstStart`):
 * nodes starting together on an empty database set it up once.
 */
export const FIRST_START_LOCK = String(BASE + 6n);

/**
 * Transaction-level, two-key form `pg_advisory_xact_lock(FLOOD_WINDOW_LOCK_CLASS, hashtext(...))`
 * (a key space apart from the single-key locks above): taken by a claim that reads and moves a
 * recipient's flood window (e-mail or push), so two nodes claiming for the same (user, channel)
 * decide in turn, the second from the window the first committed. A row lock cannot do it: the
 * window row may not exist yet. The hashed text starts with `mail:` or `push:`; two windows
 * hashing alike only wait for each other. "ALBF": apart from the Idempotency-Key claims' class
 * ("ALBR", src/db/pg/alert-store/idempotency-claims.ts).
 */
export const FLOOD_WINDOW_LOCK_CLASS = 0x414c4246;

/**
 * Transaction-level, two-key form `pg_advisory_xact_lock(MEDIA_KEY_LOCK_CLASS, hashtext(media_key))`:
 * the per-key lock between the leader's orphan sweep and the uploads of every node
 * (src/db/pg/media-orphan-rows.ts). The sweep holds it around its check ("still due?") and its
 * unlink; an upload takes it around its pin (a listed key starts a new grace period) before
 * linking its file into place. Two keys hashing alike only wait for each other. "ALBM": apart from
 * the other two-key classes above.
 */
export const MEDIA_KEY_LOCK_CLASS = 0x414c424d;
