import { defineConfig } from 'drizzle-kit';

/** PostgreSQL (cluster mode): `npm run db:generate:pg` writes migrations into drizzle-pg/. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/shared/schema/index.ts',
  out: './drizzle-pg',
});
