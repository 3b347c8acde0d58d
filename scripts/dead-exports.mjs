#!/usr/bin/env node
// Exports that nothing outside their file uses, or only tests (and e2e, bench) use: the "dead code
// out" list of issue 8. Uses the TypeScript language service's find-references, so re-exports
// through index.ts and `import type` are followed. Report only; it changes nothing.
//
//   node scripts/dead-exports.mjs [--json]
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Files whose exports are checked: the product's source, not its tests, benches or tooling. */
const CHECKED = /^(lib|server|components|trpc|cli)\//;
/** Tests and everything that only exercises the product. */
const TEST_SIDE = /(\.test\.tsx?$)|(\/testing\/)|(\/test-(support|helpers)\.ts$)|^(e2e|bench|scripts)\//;
/** Entry points whose exports a framework or a bin reads. */
const ENTRY = new Set(['cli/main.ts']);

const configPath = join(ROOT, 'tsconfig.json');
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, ROOT);
const files = config.fileNames.filter((file) => !file.includes('/node_modules/') && !file.includes('/.next/'));
const versions = new Map(files.map((file) => [file, '1']));
const service = ts.createLanguageService(
  {
    getCompilationSettings: () => ({ ...config.options, plugins: [] }),
    getScriptFileNames: () => files,
    getScriptVersion: (file) => versions.get(file) ?? '1',
    getScriptSnapshot: (file) => {
      try {
        return ts.ScriptSnapshot.fromString(readFileSync(file, 'utf8'));
      } catch {
        return undefined;
      }
    },
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  },
  ts.createDocumentRegistry(),
);
const program = service.getProgram();
const rel = (file) => relative(ROOT, file);

/** The name nodes a file exports directly (not its re-exports). */
function exportedNames(source) {
  const names = [];
  const exported = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export;
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) names.push(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) &&
      exported(statement) &&
      statement.name
    ) {
      names.push(statement.name);
    }
  }
  return names;
}

/** True when the reference is itself an export or import specifier (a re-export or import site, not a use). */
function isPassThrough(sourceFile, position) {
  let node = ts.getTokenAtPosition ? ts.getTokenAtPosition(sourceFile, position) : undefined;
  if (!node) return false;
  while (node && !ts.isSourceFile(node)) {
    if (ts.isExportSpecifier(node) || ts.isImportSpecifier(node) || ts.isImportClause(node)) return true;
    if (ts.isStatement(node)) return false;
    node = node.parent;
  }
  return false;
}

const rows = [];
for (const file of files) {
  const name = rel(file);
  if (!CHECKED.test(name) || TEST_SIDE.test(name) || ENTRY.has(name)) continue;
  const source = program.getSourceFile(file);
  if (!source) continue;
  for (const id of exportedNames(source)) {
    const groups = service.findReferences(file, id.getStart(source)) ?? [];
    const users = new Set();
    let usedInFile = false;
    for (const group of groups) {
      for (const reference of group.references) {
        if (reference.isDefinition) continue;
        const where = program.getSourceFile(reference.fileName);
        if (!where || isPassThrough(where, reference.textSpan.start)) continue;
        if (reference.fileName === file) usedInFile = true;
        else users.add(rel(reference.fileName));
      }
    }
    const product = [...users].filter((user) => !TEST_SIDE.test(user));
    if (product.length > 0) continue;
    const line = source.getLineAndCharacterOfPosition(id.getStart(source)).line + 1;
    const verdict = users.size > 0 ? (usedInFile ? 'tests only, and its own file' : 'tests only') : usedInFile ? 'unexport (used in its file only)' : 'unused';
    rows.push({ where: `${name}:${line}`, name: id.text, verdict, users: [...users].sort() });
  }
}

if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
} else {
  for (const row of rows) console.log(`${row.where}\t${row.name}\t${row.verdict}${row.users.length ? `\t${row.users.join(', ')}` : ''}`);
  console.log(`${rows.length} export(s) no product code uses outside their file`);
}
