// Layers point one way (issue 24; docs/architecture.md):
//
//   transports (http, dashboard, cli, discord, mcp) → use cases (domain) → ports declared in domain
//                                                                     ← adapters (db, media, notify, ops)
//
// lib is the shared bottom layer; alert-card renders an alert for the dashboard and the e-mails; the
// composition root (main, bootstrap, runtime, services, config) is the one place that knows every part.
// Each rule below is one clause of that sentence; `npm run lint` fails on a wrong arrow.

const TRANSPORTS = '^src/(http|dashboard|cli|discord|mcp)/';
const ADAPTERS = '^src/(db|media|notify|ops)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'use-cases-import-only-their-ports-and-lib',
      comment: 'domain/ holds the use cases and the ports they declare; it imports nothing but itself and lib/ (no transport, no adapter, no wiring).',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/(domain|lib)/' },
    },
    {
      name: 'db-imports-nothing-above-it',
      comment: 'db/ implements the ports declared in domain/; it imports only domain ports and types, lib/, and itself.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db|domain|lib)/' },
    },
    {
      name: 'pg-imports-only-pg-and-shared',
      comment: 'PostgreSQL code (db/pg/) imports only itself and db/shared/ (SQL written once for both engines); what it needs from the SQLite side moves to db/shared/.',
      severity: 'error',
      from: { path: '^src/db/pg/' },
      to: { path: '^src/db/', pathNot: '^src/db/(pg|shared)/' },
    },
    {
      name: 'sqlite-imports-only-sqlite-and-shared',
      comment: 'SQLite code (db/sqlite/) imports only itself and db/shared/, never PostgreSQL code nor the engine-neutral transfer.',
      severity: 'error',
      from: { path: '^src/db/sqlite/' },
      to: { path: '^src/db/', pathNot: '^src/db/(sqlite|shared)/' },
    },
    {
      name: 'shared-is-engine-neutral',
      comment: 'db/shared/ serves both engines, so it imports no engine code.',
      severity: 'error',
      from: { path: '^src/db/shared/' },
      to: { path: '^src/db/', pathNot: '^src/db/(shared/|sqlite/schema/)' },
    },
    {
      name: 'the-running-service-loads-no-schema',
      comment: 'The drizzle schema is for drizzle-kit, the migrations and export/import: the running service spells columns from their keys (columnName in src/db/shared/alert-columns.ts), so it never loads drizzle (docs/operations.md).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/db/(shared/schema/|transfer/)' },
      to: { path: '^src/db/shared/schema/' },
    },
    {
      name: 'adapters-do-not-call-transports',
      comment: 'Adapters (db, media, notify, ops) are called through ports; they never reach up into a transport.',
      severity: 'error',
      from: { path: ADAPTERS },
      to: { path: TRANSPORTS },
    },
    {
      name: 'media-implements-domain-ports',
      comment: 'media/ (the store and the SSRF-guarded fetcher) implements domain ports; it imports only domain, lib and itself.',
      severity: 'error',
      from: { path: '^src/media/' },
      to: { path: '^src/', pathNot: '^src/(media|domain|lib)/' },
    },
    {
      name: 'alert-card-is-presentation-only',
      comment: 'alert-card/ renders an alert view for the dashboard and the e-mails; it imports only domain view types and lib.',
      severity: 'error',
      from: { path: '^src/alert-card/' },
      to: { path: '^src/', pathNot: '^src/(alert-card|domain|lib)/' },
    },
    {
      name: 'lib-is-the-bottom-layer',
      comment: 'lib/ is shared by every layer, so it imports no other part of src/.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'services-import-no-transport',
      comment: 'The service graph (services.ts, services/) builds use cases and adapters; transports are given their dependencies, never built inside it.',
      severity: 'error',
      from: { path: '^src/services(\\.ts$|/)' },
      to: { path: TRANSPORTS },
    },
    {
      name: 'only-the-composition-root-knows-services',
      comment: 'A transport or an adapter receives the narrow dependencies it uses (HttpDeps, DashboardServices, PushStarterDeps, declared beside it), not the whole Services: only the composition root imports services.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(main|bootstrap|runtime|services)\\.ts$|^src/services/' },
      to: { path: '^src/services\\.ts$' },
    },
    {
      name: 'transports-reach-adapters-through-wiring',
      comment: 'A transport is handed its adapters (through ports or the composition root\'s use cases, e.g. the CLI\'s export/import through services/admin.ts) rather than import them.',
      severity: 'error',
      from: { path: TRANSPORTS },
      to: { path: '^src/(db)/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    // `import type` counts: a type import is an arrow too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.build.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
