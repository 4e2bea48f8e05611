import fs from 'node:fs';
import path from 'node:path';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../drizzle-pg');

/** The statement of a migration file that creates (or replaces) the function whose signature starts so, as CREATE FUNCTION. */
export function createFunctionStatement(file: string, signature: string): string {
  const statements = fs.readFileSync(path.join(MIGRATIONS, file), 'utf8').split('--> statement-breakpoint');
  const opening = new RegExp(`CREATE (OR REPLACE )?FUNCTION ${signature.replace('(', '\\(')}`);
  const found = statements.find((s) => opening.test(s));
  if (!found) throw new Error(`${signature} not in drizzle-pg/${file}`);
  return found.replace('CREATE OR REPLACE FUNCTION', 'CREATE FUNCTION');
}

/**
 * The search vector's functions as SQL-language functions, the last definitions before
 * drizzle-pg/0023_search_plpgsql.sql made them PL/pgSQL: for pricing that change
 * (bench/pg-cost.bench.ts) and for checking it changed no vector (test/pg/search-vector.test.ts).
 */
export const SEARCH_FUNCTIONS_BEFORE_0023 = [
  ['0005_search.sql', 'alertbridge_search_part('],
  ['0008_search_field_labels.sql', 'alertbridge_search_body('],
  ['0020_search_thread_names.sql', 'alertbridge_search_document('],
] as const;

/** The same, as one script that replaces the current definitions in place. */
export function searchFunctionsBefore0023Sql(): string {
  return SEARCH_FUNCTIONS_BEFORE_0023.map(([file, signature]) => createFunctionStatement(file, signature).replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION')).join(';\n');
}
