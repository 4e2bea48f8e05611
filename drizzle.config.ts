import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/shared/schema/index.ts',
  out: './drizzle',
});
