import { customType } from 'drizzle-orm/pg-core';

/**
 * Every text column on PostgreSQL is `COLLATE "C"`: byte order, which is SQLite's BINARY order for
 * UTF-8. Ids, activity keys and cursors are compared and sorted as text (`id < cursor`,
 * `activity_key > watermark`, ORDER BY id), and a database created with a locale collation
 * (en_US.UTF-8 ignores punctuation, interleaves case) would order them differently from SQLite and
 * from the id generator. Same signature as pg-core's `text`, so the schema files read like the
 * SQLite ones; `enum` only narrows the TypeScript type, as there.
 */
export function text<const T extends string = string>(name: string, config?: { enum: readonly T[] }) {
  void config;
  return customType<{ data: T; driverData: string }>({ dataType: () => 'text COLLATE "C"' })(name);
}
