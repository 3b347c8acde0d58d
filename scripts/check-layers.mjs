#!/usr/bin/env node
// The layer rules of DESIGN §1 and STYLE.md, checked on the import graph: every .ts/.tsx/.mjs
// file is parsed with the TypeScript compiler, its specifiers resolved (`@/` is the repo root),
// and every edge that runs against the rules (scripts/layer-rules.mjs) is printed as `from → to (rule)`. Edges listed
// in scripts/layer-allowlist.json (each with its reason) are tolerated; any other one exits 1.
//
//   node scripts/check-layers.mjs [--root DIR] [--allowlist FILE] [--print-allowlist]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { valueCycles } from './import-cycles.mjs';
import { ANY, INDEX_ROOTS, LAYERS, PEERLESS_FOLDERS, STORE_ORDER, STORE_ROOT, TEST_FILE, TEST_IMPORTS } from './layer-rules.mjs';

export { LAYERS, STORE_ORDER, STORE_ROOT, PEERLESS_FOLDERS, INDEX_ROOTS, TEST_FILE, TEST_IMPORTS };

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

function allows(entries, target, typeOnly, excludes = []) {
  if (entries === ANY) return true;
  if (excludes.some((folder) => target.startsWith(folder))) return false;
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
  const valueEdges = [];
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
      if (!typeOnly && !isTest) valueEdges.push([from, to]);
      if (!allows(layer.imports, to, typeOnly, layer.excludes) && !(isTest && allows(TEST_IMPORTS, to, typeOnly))) {
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
  for (const circle of valueCycles(valueEdges)) {
    report(circle[0], circle[1], 'cycle', `a circle of value imports: ${[...circle, circle[0]].join(' → ')}`);
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
