#!/usr/bin/env node
// The layer rules of DESIGN §1 and STYLE.md, checked on the import graph: every .ts/.tsx/.mjs
// file is parsed with the TypeScript compiler, its specifiers resolved (`@/` is the repo root),
// and every edge that runs against the rules below is printed as `from → to (rule)`. Edges listed
// in scripts/layer-allowlist.json (each with its reason) are tolerated; any other one exits 1.
//
//   node scripts/check-layers.mjs [--root DIR] [--allowlist FILE] [--print-allowlist]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// ---------------------------------------------------------------------------------------------
// The rules, as data. A file belongs to the first layer one of whose `paths` it starts with.
// `packages`: the npm packages it may import ('*' = any package declared in package.json).
// `imports`: the repo paths it may import (a folder ends with '/'); `{ path, typeOnly: true }`
// admits `import type` only; `imports: '*'` is a free layer (tests, benches, tooling) that may
// import anything, past any index.ts. Node built-ins are allowed unless `builtins: false`.
// ---------------------------------------------------------------------------------------------
const ANY = '*';

export const LAYERS = [
  { layer: 'lib/fs', paths: ['lib/fs/'], packages: [], imports: ['lib/fs/'] },
  // the typed-error base of lib/store and lib/auth
  { layer: 'lib/errors', paths: ['lib/errors/'], packages: [], imports: ['lib/errors/'] },
  {
    layer: 'lib/store',
    paths: ['lib/store/'],
    packages: ['isomorphic-git', 'lru-cache', 'zod', 'fflate'],
    imports: ['lib/store/', 'lib/fs/', 'lib/errors/'],
  },
  // share links: their records, ids, expiry and who may open them; no session content
  { layer: 'lib/share', paths: ['lib/share/'], packages: [], imports: ['lib/share/', 'lib/fs/', 'lib/errors/'] },
  { layer: 'lib/auth', paths: ['lib/auth/'], packages: [], imports: ['lib/auth/', 'lib/fs/', 'lib/errors/'] },
  // the full-text index: derived from the store's sessions, never imported by it
  {
    layer: 'lib/search',
    paths: ['lib/search/'],
    packages: ['better-sqlite3', 'mdast-util-from-markdown', 'mdast-util-gfm', 'micromark-extension-gfm'],
    imports: ['lib/search/', 'lib/store/', 'lib/fs/', 'lib/errors/'],
  },
  { layer: 'lib/llm', paths: ['lib/llm/'], packages: [], imports: ['lib/llm/'] },
  // secrets out of text: secretlint's rules as a library
  { layer: 'lib/redact', paths: ['lib/redact/'], packages: ['@secretlint/secretlint-rule-preset-recommend'], imports: ['lib/redact/'] },
  // other tools' transcripts in: parsers above the store, never imported by it
  {
    layer: 'lib/import',
    paths: ['lib/import/'],
    packages: ['fflate'],
    imports: ['lib/import/', 'lib/store/', 'lib/redact/', 'lib/fs/', 'lib/errors/'],
  },
  // cluster mode (DESIGN §11): Postgres backends of lib/auth, user_shard, the control channel, HAProxy's map
  // moving a user (DESIGN §11): the journal, rsync, the verify (through the store), the directory and control ports
  { layer: 'lib/cluster/move', paths: ['lib/cluster/move/'], packages: ['pg'], imports: ['lib/cluster/', 'lib/store/', 'lib/fs/', 'lib/errors/'] },
  { layer: 'lib/cluster', paths: ['lib/cluster/'], packages: ['pg'], imports: ['lib/cluster/', 'lib/auth/', 'lib/share/', 'lib/fs/', 'lib/errors/'] },
  { layer: 'lib/process', paths: ['lib/process/'], packages: [], imports: ['lib/process/'] },
  // the recording proxy's wire formats: requests read into steps, replies reassembled, fingerprints
  { layer: 'lib/proxy', paths: ['lib/proxy/'], packages: [], imports: ['lib/proxy/'] },
  // the agent's file tools: confinement on real paths, node built-ins only
  { layer: 'lib/tools', paths: ['lib/tools/'], packages: [], imports: ['lib/tools/'] },
  // export: Markdown, JSON, bundle and zip of sessions, streamed from the store's public surface
  { layer: 'lib/export', paths: ['lib/export/'], packages: ['fflate'], imports: ['lib/export/', 'lib/store/'] },
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
  ['repo/', 'dag/'],
  // changes/: the change feed (DESIGN §3), appended by session-store.ts and the session steps
  ['registry/', 'titles/', 'projects/', 'recovery/', 'changes/'],
  // the session cache and locks, and what operations share
  ['session/'],
  ['operations/'],
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

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mjs'];
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', 'test-results', 'playwright-report']);
/** Not source, and only at the top: the default data directory and scratch space. */
const SKIP_TOP_DIRS = new Set(['data', 'tmp']);
const RESOLVE_EXTENSIONS = ['.ts', '.tsx', '.mjs', '.js', '.cjs', '.json'];
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

// ---------------------------------------------------------------------------------------------

function toPosix(path) {
  return path.split(sep).join('/');
}

function listSources(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        const skipped = SKIP_DIRS.has(entry.name) || entry.name.startsWith('.') || (dir === root && SKIP_TOP_DIRS.has(entry.name));
        if (!skipped) walk(join(dir, entry.name));
      } else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) {
        files.push(toPosix(relative(root, join(dir, entry.name))));
      }
    }
  };
  walk(root);
  return files.sort();
}

/** Every module specifier of a file, and whether the import only brings in types. */
export function importsOf(fileName, text) {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : fileName.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found = [];
  const add = (node, typeOnly) => {
    if (node && ts.isStringLiteralLike(node)) found.push({ specifier: node.text, typeOnly });
  };
  const allTypes = (elements) => elements.length > 0 && elements.every((element) => element.isTypeOnly);
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && allTypes(clause.namedBindings.elements)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const typeOnly = node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && allTypes(node.exportClause.elements));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length === 1) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A repo-relative path for `@/x`, `./x.js`, `../x`; null when nothing on disk matches. */
function resolveSpecifier(root, fromFile, specifier) {
  const base = specifier.startsWith('@/') ? join(root, specifier.slice(2)) : resolve(root, dirname(fromFile), specifier);
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  const candidates = [base, ...RESOLVE_EXTENSIONS.map((ext) => stem + ext), ...RESOLVE_EXTENSIONS.map((ext) => join(base, `index${ext}`))];
  const hit = candidates.find(isFile);
  return hit ? toPosix(relative(root, hit)) : null;
}

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function layerOf(file) {
  return LAYERS.find((layer) => layer.paths.some((path) => file === path || (path.endsWith('/') && file.startsWith(path))));
}

function storeLevel(file) {
  // A test beside a top-level file (session-store.test.ts) has that file's level.
  const inner = file.slice(STORE_ROOT.length).replace(/\.test\.ts$/, '.ts');
  const level = STORE_ORDER.findIndex((entries) => entries.some((entry) => inner === entry || (entry.endsWith('/') && inner.startsWith(entry))));
  return level === -1 ? null : level;
}

function storeEntry(file) {
  const inner = file.slice(STORE_ROOT.length);
  return inner.includes('/') ? `${inner.split('/')[0]}/` : inner;
}

function allows(entries, target, typeOnly) {
  if (entries === ANY) return true;
  return entries.some((entry) => {
    const path = typeof entry === 'string' ? entry : entry.path;
    const matches = target === path || (path.endsWith('/') && target.startsWith(path));
    return matches && (typeof entry === 'string' || !entry.typeOnly || typeOnly);
  });
}

/** The folder index.ts the import should have gone through, if it reached past one. */
function bypassedIndex(root, from, to) {
  if (!INDEX_ROOTS.some((prefix) => to.startsWith(prefix))) return null;
  let dir = dirname(to);
  const chain = [];
  while (dir !== '.' && dir !== '') {
    if (from.startsWith(`${dir}/`)) break;
    chain.unshift(dir);
    dir = dirname(dir);
  }
  for (const folder of chain) {
    const index = ['index.ts', 'index.tsx'].map((name) => `${folder}/${name}`).find((path) => isFile(join(root, path)));
    if (index && index !== to) return index;
  }
  return null;
}

function declaredPackages(root) {
  const path = join(root, 'package.json');
  if (!existsSync(path)) return { all: new Set(), dev: new Set() };
  const pkg = JSON.parse(readFileSync(path, 'utf8'));
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  return { all: new Set([...Object.keys(pkg.dependencies ?? {}), ...dev]), dev };
}

/** Every edge against the rules: { from, to, rule, detail }. */
export function findViolations(root) {
  const declared = declaredPackages(root);
  const violations = [];
  const report = (from, to, rule, detail) => violations.push({ from, to, rule, detail });
  for (const from of listSources(root)) {
    const layer = layerOf(from);
    if (!layer) {
      report(from, from, 'unplaced', 'the file is in no layer of scripts/check-layers.mjs');
      continue;
    }
    const isTest = TEST_FILE.test(from);
    const inStore = from.startsWith(STORE_ROOT);
    const fromLevel = inStore ? storeLevel(from) : null;
    if (inStore && fromLevel === null) report(from, from, 'store-order', 'the file has no level in STORE_ORDER');
    for (const { specifier, typeOnly } of importsOf(from, readFileSync(join(root, from), 'utf8'))) {
      if (BUILTINS.has(specifier)) {
        if (layer.builtins === false) report(from, specifier, 'package', `${layer.layer} may not import node built-ins`);
        continue;
      }
      const isPath = specifier.startsWith('.') || specifier.startsWith('@/') || specifier.startsWith('/');
      if (!isPath) {
        const name = packageName(specifier);
        const testExtra = isTest && (name === 'vitest' || declared.dev.has(name));
        if (layer.packages === ANY) {
          // a type-only import is declared by its @types package
          const typesName = `@types/${name.replace(/^@([^/]+)\//, '$1__')}`;
          if (!declared.all.has(name) && !(typeOnly && declared.all.has(typesName))) report(from, name, 'package', 'not declared in package.json');
          // what the product runs must be in dependencies: `npm ci --omit=dev` leaves the rest out
          else if (declared.dev.has(name) && !isTest && layer.imports !== ANY && !typeOnly) report(from, name, 'package', 'a devDependency imported by product code');
        } else if (!layer.packages.includes(name) && !testExtra) {
          report(from, name, 'package', `${layer.layer} may import only ${layer.packages.join(', ') || 'node built-ins'}`);
        }
        continue;
      }
      const to = resolveSpecifier(root, from, specifier);
      if (to === null) {
        report(from, specifier, 'unresolved', 'no file matches the specifier');
        continue;
      }
      // Benches run against the project's own test servers (the loopback model), as the tests do;
      // end-to-end tests start the same throwaway services as the unit tests (a Postgres).
      if (!isTest && TEST_FILE.test(to) && layer.layer !== 'bench' && layer.layer !== 'e2e') {
        report(from, to, 'test-helper', 'source code never imports tests or their helpers');
        continue;
      }
      if (layer.imports === ANY) continue;
      if (!allows(layer.imports, to, typeOnly) && !(isTest && allows(TEST_IMPORTS, to, typeOnly))) {
        const typeRule = layer.imports.find((entry) => typeof entry !== 'string' && to === entry.path);
        if (typeRule) report(from, to, 'type-only', `${layer.layer} may take only types from ${to}`);
        else report(from, to, 'layer', `${layer.layer} may not import ${layerOf(to)?.layer ?? to}`);
        continue;
      }
      if (isTest) continue;
      if (inStore && to.startsWith(STORE_ROOT)) {
        const toLevel = storeLevel(to);
        if (fromLevel !== null && toLevel !== null && toLevel > fromLevel) {
          report(from, to, 'store-order', `${storeEntry(from)} (level ${fromLevel}) may not import ${storeEntry(to)} (level ${toLevel})`);
          continue;
        }
      }
      const peerless = PEERLESS_FOLDERS.find((folder) => dirname(from) === folder.slice(0, -1));
      if (peerless && dirname(to) === dirname(from)) {
        report(from, to, 'peer', `no imports between the files of ${peerless}`);
        continue;
      }
      const index = bypassedIndex(root, from, to);
      if (index) report(from, to, 'index', `reaches past ${index}`);
    }
  }
  return violations;
}

const key = (edge) => `${edge.from}\u0000${edge.to}\u0000${edge.rule}`;

export function readAllowlist(path) {
  if (!existsSync(path)) return [];
  const entries = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(entries)) throw new Error(`${path}: expected an array of { from, to, rule, reason }`);
  for (const entry of entries) {
    if (typeof entry.from !== 'string' || typeof entry.to !== 'string' || typeof entry.rule !== 'string' || typeof entry.reason !== 'string' || entry.reason.trim() === '') {
      throw new Error(`${path}: every entry needs from, to, rule and a non-empty reason: ${JSON.stringify(entry)}`);
    }
  }
  return entries;
}

export function formatEdge(edge) {
  return `${edge.from} → ${edge.to} (${edge.rule}: ${edge.detail})`;
}

/**
 * The whole check as the command runs it: the lines it prints and its exit code (0 clean, 1 a
 * back edge outside the allowlist, 2 an unusable allowlist).
 */
export function runCheck(argv) {
  const option = (name) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const root = resolve(option('--root') ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
  const allowlistPath = resolve(option('--allowlist') ?? join(root, 'scripts', 'layer-allowlist.json'));
  let allowlist;
  try {
    allowlist = readAllowlist(allowlistPath);
  } catch (error) {
    return { code: 2, out: [], err: [error instanceof Error ? error.message : String(error)] };
  }
  const violations = findViolations(root);
  const allowed = new Set(allowlist.map(key));
  const found = new Set(violations.map(key));
  const fresh = violations.filter((edge) => !allowed.has(key(edge)));
  const tolerated = violations.filter((edge) => allowed.has(key(edge)));
  const stale = allowlist.filter((entry) => !found.has(key(entry)));

  if (argv.includes('--print-allowlist')) {
    const reasons = new Map(allowlist.map((entry) => [key(entry), entry.reason]));
    const entries = violations.map((edge) => ({ from: edge.from, to: edge.to, rule: edge.rule, reason: reasons.get(key(edge)) ?? '' }));
    return { code: 0, out: [JSON.stringify(entries, null, 2)], err: [] };
  }
  const out = [
    ...tolerated.map((edge) => `allowed  ${formatEdge(edge)}`),
    ...stale.map((entry) => `stale    ${entry.from} → ${entry.to} (${entry.rule}): no longer found; remove it from the allowlist`),
    ...fresh.map((edge) => `BACK EDGE ${formatEdge(edge)}`),
    `${violations.length} edge(s) against the layer rules, ${tolerated.length} allowlisted, ${fresh.length} not allowed`,
  ];
  return { code: fresh.length > 0 ? 1 : 0, out, err: [] };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { code, out, err } = runCheck(process.argv.slice(2));
  for (const line of out) process.stdout.write(`${line}\n`);
  for (const line of err) process.stderr.write(`${line}\n`);
  process.exitCode = code;
}
