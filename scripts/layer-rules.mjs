// The layer rules of DESIGN §1 and STYLE.md, read by scripts/check-layers.mjs.

// ---------------------------------------------------------------------------------------------
// The rules, as data. A file belongs to the first layer one of whose `paths` it starts with.
// `packages`: the npm packages it may import ('*' = any package declared in package.json).
// `imports`: the repo paths it may import (a folder ends with '/'); `{ path, typeOnly: true }`
// admits `import type` only; `excludes`: folders under an allowed prefix that stay out of reach
// (a higher layer nested in a lower one's folder); `imports: '*'` is a free layer (tests, benches,
// tooling) that may import anything, past any index.ts. Node built-ins are allowed unless
// `builtins: false`. Apart from the layers, no value import may close a circle (rule `cycle`).
// ---------------------------------------------------------------------------------------------
export const ANY = '*';

export const LAYERS = [
  { layer: 'lib/fs', paths: ['lib/fs/'], packages: [], imports: ['lib/fs/'] },
  // the typed-error base of lib/store and lib/auth
  { layer: 'lib/errors', paths: ['lib/errors/'], packages: [], imports: ['lib/errors/'] },
  {
    layer: 'lib/store',
    paths: ['lib/store/'],
    packages: ['isomorphic-git', 'lru-cache', 'zod', 'fflate'],
    // lib/process: whether a pid that left files behind still runs (the data-directory lock asks the same)
    imports: ['lib/store/', 'lib/fs/', 'lib/errors/', 'lib/process/'],
  },
  // share links: their records, ids, expiry and who may open them; no session content
  { layer: 'lib/share', paths: ['lib/share/'], packages: [], imports: ['lib/share/', 'lib/fs/', 'lib/errors/'] },
  { layer: 'lib/auth', paths: ['lib/auth/'], packages: [], imports: ['lib/auth/', 'lib/fs/', 'lib/errors/'] },
  // the audit log (DESIGN §17): its entries, the append-only file read from the end, its CSV
  { layer: 'lib/audit', paths: ['lib/audit/'], packages: [], imports: ['lib/audit/', 'lib/fs/', 'lib/errors/'] },
  // the full-text index: derived from the store's sessions, never imported by it
  {
    layer: 'lib/search',
    paths: ['lib/search/'],
    packages: ['better-sqlite3', 'mdast-util-from-markdown', 'mdast-util-gfm', 'micromark-extension-gfm'],
    imports: ['lib/search/', 'lib/store/', 'lib/fs/', 'lib/errors/'],
  },
  // usage and cost (DESIGN §15): rollups fed by the store's change feed in the search index's SQLite, the price table
  {
    layer: 'lib/usage',
    paths: ['lib/usage/'],
    packages: ['zod'],
    imports: ['lib/usage/', 'lib/store/', 'lib/search/', 'lib/fs/', 'lib/errors/', 'lib/proxy/usage.ts'],
  },
  { layer: 'lib/llm', paths: ['lib/llm/'], packages: [], imports: ['lib/llm/'] },
  // secrets out of text: secretlint's rules as a library
  { layer: 'lib/redact', paths: ['lib/redact/'], packages: ['@secretlint/secretlint-rule-preset-recommend'], imports: ['lib/redact/'] },
  // other tools' transcripts in: parsers above the store, never imported by it
  {
    layer: 'lib/import',
    paths: ['lib/import/'],
    packages: ['fflate'],
    // lib/proxy/usage.ts: an imported answer's usage in the shape the proxy records (DESIGN §15)
    imports: ['lib/import/', 'lib/store/', 'lib/redact/', 'lib/fs/', 'lib/errors/', 'lib/proxy/usage.ts'],
  },
  // cluster mode (DESIGN §11): Postgres backends of lib/auth, user_shard, the control channel, HAProxy's map
  // moving a user (DESIGN §11): the journal, rsync, the verify (through the store), the directory and control ports
  // (the control contract: zod schemas of the instance endpoint's bodies, user ids as lib/auth has them)
  { layer: 'lib/cluster/move', paths: ['lib/cluster/move/'], packages: ['pg', 'zod'], imports: ['lib/cluster/', 'lib/store/', 'lib/auth/', 'lib/fs/', 'lib/errors/'] },
  // the rest of lib/cluster stays below move/: `excludes` closes the prefix gap (lib/cluster/ contains move/)
  { layer: 'lib/cluster', paths: ['lib/cluster/'], packages: ['pg'], imports: ['lib/cluster/', 'lib/auth/', 'lib/share/', 'lib/audit/', 'lib/fs/', 'lib/errors/'], excludes: ['lib/cluster/move/'] },
  { layer: 'lib/process', paths: ['lib/process/'], packages: [], imports: ['lib/process/'] },
  // the recording proxy's wire formats: requests read into steps, replies reassembled, fingerprints
  { layer: 'lib/proxy', paths: ['lib/proxy/'], packages: [], imports: ['lib/proxy/'] },
  // resume in the agent (DESIGN §14): a branch written as Claude Code's / Codex's transcript, and the link the proxy follows back
  { layer: 'lib/resume', paths: ['lib/resume/'], packages: [], imports: ['lib/resume/', 'lib/store/', 'lib/proxy/', 'lib/import/', 'lib/fs/', 'lib/errors/'] },
  // bisect over turns (DESIGN §14): the plan and the turns it runs over, pure; the CLI runs the commands
  { layer: 'lib/bisect', paths: ['lib/bisect/'], packages: [], imports: ['lib/bisect/'] },
  // the agent's file tools: confinement on real paths, node built-ins only
  { layer: 'lib/tools', paths: ['lib/tools/'], packages: [], imports: ['lib/tools/'] },
  // export: Markdown, JSON, bundle and zip of sessions, streamed from the store's public surface
  { layer: 'lib/export', paths: ['lib/export/'], packages: ['fflate'], imports: ['lib/export/', 'lib/store/'] },
  // backups (DESIGN §17): a data directory copied to a tar while the server runs, verified, restored
  { layer: 'lib/backup', paths: ['lib/backup/'], packages: ['tar-stream', 'zod'], imports: ['lib/backup/', 'lib/store/', 'lib/fs/'] },
  // the collector (DESIGN §17): this machine's transcripts to a server's import, with a saved position per file
  { layer: 'lib/collect', paths: ['lib/collect/'], packages: [], imports: ['lib/collect/', 'lib/fs/'] },
  // retention (DESIGN §17): the user's and the instance's policy, and the sweep over a store's public surface
  { layer: 'lib/retention', paths: ['lib/retention/'], packages: ['zod'], imports: ['lib/retention/', 'lib/store/', 'lib/fs/'] },
  // compare two branches (DESIGN §14): the alignment and jsdiff's word differences over the store's two paths
  { layer: 'lib/compare', paths: ['lib/compare/'], packages: ['diff'], imports: ['lib/compare/', 'lib/store/'] },
  { layer: 'server', paths: ['server/'], packages: ANY, imports: ['server/', 'lib/'] },
  // trpc/server.tsx is the server-only caller; the rest is what client components may use.
  { layer: 'trpc', paths: ['trpc/'], packages: ANY, imports: ['trpc/', 'server/'] },
  {
    layer: 'app',
    paths: ['app/', 'pages/', 'proxy.ts', 'instrumentation.ts'],
    packages: ANY,
    imports: ['app/', 'server/', 'components/', 'trpc/'],
  },
  {
    layer: 'components',
    paths: ['components/'],
    packages: ANY,
    // client code: it runs in the browser, where node's modules do not exist
    builtins: false,
    imports: [
      'components/',
      'trpc/client.ts',
      'trpc/live-events.ts',
      'trpc/query-client.ts',
      { path: 'trpc/types.ts', typeOnly: true },
    ],
  },
  // The CLI works on the data directory through lib/*, or on the HTTP API with the router's types.
  { layer: 'cli', paths: ['cli/'], packages: ANY, imports: ['cli/', 'lib/', { path: 'trpc/types.ts', typeOnly: true }] },
  { layer: 'e2e', paths: ['e2e/'], packages: ANY, imports: ANY },
  { layer: 'bench', paths: ['bench/'], packages: ANY, imports: ANY },
  { layer: 'scripts', paths: ['scripts/'], packages: ANY, imports: ANY },
  { layer: 'tests', paths: ['tests/'], packages: ANY, imports: ANY },
  {
    layer: 'config',
    paths: ['next.config.ts', 'playwright.config.ts', 'playwright.cluster.config.ts', 'vitest.config.ts', 'postcss.config.mjs'],
    packages: ANY,
    imports: ANY,
  },
];

/**
 * Inside lib/store, lowest first (STYLE.md): a file may import its own level and the ones below,
 * never a higher one. Entries are paths relative to lib/store/ (a folder ends with '/').
 */
export const STORE_ROOT = 'lib/store/';
export const STORE_ORDER = [
  ['errors.ts', 'ids.ts', 'types.ts', 'events.ts', 'text.ts', 'time.ts', 'json-depth.ts'],
  ['git/'],
  // organise/: tags' and states' rules and the tag filter (DESIGN §16), read by the registry
  ['repo/', 'dag/', 'organise/'],
  // changes/: the change feed (DESIGN §3), appended by session-store.ts and the session steps
  ['registry/', 'titles/', 'projects/', 'recovery/', 'changes/'],
  // the session cache and locks, and what operations share
  ['session/'],
  // trash/: retention's trash (DESIGN §17), a session's repository moved out of sessions/ and back
  ['operations/', 'trash/'],
  // flows/: an operation made of others (an agent's exchange recorded as a turn, an import given its project)
  ['flows/'],
  // the store's project and attachment methods, the base class of session-store.ts
  ['session-store-projects.ts'],
  ['session-store.ts', 'index.ts'],
  ['testing/'],
];

/**
 * Folders of independent entries: a file there never imports its neighbour (one operation per
 * file, as isomorphic-git's src/api/; what two operations share lives in a folder below).
 */
export const PEERLESS_FOLDERS = ['lib/store/operations/'];

/** A folder under these roots with an index.ts is entered through it from outside the folder. */
export const INDEX_ROOTS = ['lib/'];

/** Tests and their helpers: also vitest and the dev dependencies, and the store's order and the index rule do not apply. */
export const TEST_FILE = /(\.test\.tsx?$)|(\/testing\/)/;
export const TEST_IMPORTS = ['e2e/fixtures/'];
