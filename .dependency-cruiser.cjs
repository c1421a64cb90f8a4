// The layering of docs/architecture.md, checked on every `npm test` (npm run lint:deps):
//   etl → data/ → src/store → src/domain (pure) → src/verbs → transports (src/http, src/mcp, src/cli)
// with two shared modules: src/context (VerbContext, the typed store registry) and
// src/presentation (problem bodies and credentials, used by both HTTP and MCP).
// Inner layers never import outer ones; type-only imports count too. No module (src, etl, web)
// is part of an import cycle.
// TEMPORARY (issue 35): see the no-circular rules below.
const TEMPORARY_CYCLE = '^src/verbs/(define-verb|lifecycle/invoke)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'src/domain holds rules only: it declares the interfaces it needs and imports no store, operation, transport or shared runtime module.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/(store|verbs|http|mcp|cli|context|presentation|billing|server)' },
    },
    {
      name: 'store-below-operations',
      comment: 'src/store implements the data and accounts side; it never reaches into operations, billing or transports.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(verbs|http|mcp|cli|presentation|billing|server)' },
    },
    {
      name: 'context-is-neutral',
      comment: 'src/context is shared by every layer that builds or uses a VerbContext; it names store types only.',
      severity: 'error',
      from: { path: '^src/context/' },
      to: { path: '^src/(verbs|http|mcp|cli|presentation|billing|server)' },
    },
    {
      name: 'presentation-is-shared',
      comment: 'src/presentation renders for both transports, so it imports neither of them nor the operations.',
      severity: 'error',
      from: { path: '^src/presentation/' },
      to: { path: '^src/(store|verbs|http|mcp|cli|billing|server)' },
    },
    {
      name: 'operations-below-transports',
      comment: 'src/verbs and src/billing are called by the transports, never the other way round.',
      severity: 'error',
      from: { path: '^src/(verbs|billing)/' },
      to: { path: '^src/(http|mcp|cli|presentation|server)' },
    },
    {
      name: 'mcp-not-through-http',
      comment: 'The MCP transport shares src/presentation with HTTP instead of importing it (HTTP mounts MCP).',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/(http|cli)/' },
    },
    {
      name: 'transports-independent',
      comment: 'HTTP and the admin CLI do not import each other.',
      severity: 'error',
      from: { path: '^src/(http|cli)/' },
      to: { path: '^src/(cli|http)/', pathNot: '^src/$1/' },
    },
    {
      name: 'etl-below-serving',
      comment: 'The ETL writes data/; it may share store formats and domain rules, never the serving side.',
      severity: 'error',
      from: { path: '^etl/' },
      to: { path: '^src/(verbs|http|mcp|cli|context|presentation|billing|server)' },
    },
    {
      name: 'no-circular',
      comment:
        'A cycle hides which module is the lower layer. Type-only imports count too: a type two files share lives where both can import it (e.g. src/store/accounts/shared/).',
      severity: 'error',
      from: { path: '^(src|etl|web)/', pathNot: TEMPORARY_CYCLE },
      to: { circular: true },
    },
    // TEMPORARY (issue 35): src/verbs/define-verb.ts ↔ src/verbs/lifecycle/invoke.ts is the one
    // circle left, being removed by the request-lifecycle work. Only the two edges between those
    // files are let through; any other circle through either file still fails. The lead removes
    // this rule pair and TEMPORARY_CYCLE when that work merges.
    {
      name: 'no-circular-define-verb',
      severity: 'error',
      from: { path: '^src/verbs/define-verb\\.ts$' },
      to: { circular: true, pathNot: '^src/verbs/lifecycle/invoke\\.ts$' },
    },
    {
      name: 'no-circular-invoke',
      severity: 'error',
      from: { path: '^src/verbs/lifecycle/invoke\\.ts$' },
      to: { circular: true, pathNot: '^src/verbs/define-verb\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
