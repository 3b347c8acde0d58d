import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGES, ROUTES, SERVE_PATHS, SERVER_ACTIONS, type SurfaceIds } from '../e2e/fixtures/surface-matrix';

/** Every file below `dir` (relative to the repository), `/`-separated. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((path) => join(dir, path).split('\\').join('/'));
}

/**
 * Every prefix serve.ts's router tests `url` against, before Next: string literals, and constants
 * it imports (`url.startsWith(PROXY_PREFIX)`), each read from the module that defines it (through
 * re-exports and index.ts files), so a new way in through a new constant needs a row too. A
 * query-string form (`'/mcp?'`) counts as its path.
 */
function servePrefixes(): string[] {
  const serve = readFileSync('server/http/serve.ts', 'utf8');
  const prefixes: string[] = [];
  for (const m of serve.matchAll(/\burl\s*(?:\.startsWith\(\s*|===\s*)(?:'([^']*)'|([A-Z_][A-Z0-9_]*))/g)) {
    if (m[1] !== undefined) {
      prefixes.push(m[1].replace(/\?$/, ''));
      continue;
    }
    const value = importedConstant('server/http/serve.ts', serve, m[2]!);
    if (value !== undefined) prefixes.push(value);
  }
  return prefixes;
}

/** The string a module's import of `name` resolves to, following `export { name } from` chains. */
function importedConstant(file: string, text: string, name: string, depth = 0): string | undefined {
  if (depth > 5) return undefined;
  const from = new RegExp(`(?:import|export)\\s*\\{[^}]*\\b${name}\\b[^}]*\\}\\s*from\\s*'([^']+)'`).exec(text)?.[1];
  if (!from) return undefined;
  const base = from.startsWith('@/') ? from.slice(2) : join(file, '..', from).replace(/\.js$/, '');
  const target = [`${base}.ts`, `${base}/index.ts`].find((candidate) => existsSync(candidate));
  if (!target) return undefined;
  const source = readFileSync(target, 'utf8');
  return new RegExp(`export const ${name}\\s*=\\s*'([^']+)'`).exec(source)?.[1] ?? importedConstant(target, source, name, depth + 1);
}

const IDS: SurfaceIds = { session: 's', project: 'p', sha: 'a'.repeat(40), attachment: 'x.txt', share: 'l' };

describe('the surface matrix of the security sweep', () => {
  it('has exactly one row per page of app/', () => {
    const pages = filesUnder('app').filter((path) => /\/page\.tsx$/.test(path)).sort();
    expect(PAGES.map((row) => row.file).sort()).toEqual(pages);
  });

  it('has a row for every route handler of app/ and pages/api/', () => {
    const handlers = [...filesUnder('app').filter((path) => /\/route\.ts$/.test(path)), ...filesUnder('pages/api').filter((path) => /\.tsx?$/.test(path))].sort();
    const rows = [...new Set(ROUTES.map((row) => row.file).filter((file) => !file.startsWith('server/http/serve.ts')))].sort();
    expect(rows).toEqual(handlers);
  });

  it('has a row for every path serve.ts answers before Next', () => {
    const prefixes = servePrefixes();
    expect([...new Set(prefixes)].sort()).toEqual([...SERVE_PATHS].sort());
    for (const prefix of SERVE_PATHS) {
      expect(ROUTES.some((row) => row.url(IDS).startsWith(prefix)), prefix).toBe(true);
    }
  });

  it('reads every routing test of serve.ts: a prefix it cannot resolve fails here too', () => {
    const serve = readFileSync('server/http/serve.ts', 'utf8');
    const tests = [...serve.matchAll(/\burl\s*(?:\.startsWith\(|===)/g)].length;
    // Each test names one prefix (a `url === '/x' || url.startsWith('/x?')` pair names one twice).
    expect(servePrefixes().length, 'a url test in serve.ts whose prefix is neither a literal nor an imported constant').toBe(tests);
    expect(tests).toBeGreaterThan(5);
  });

  it('has a row for every server action module and each of its exports', () => {
    const modules = filesUnder('app').filter((path) => /\.tsx?$/.test(path) && /^\s*['"]use server['"]/.test(readFileSync(path, 'utf8'))).sort();
    expect(SERVER_ACTIONS.map((row) => row.file).sort()).toEqual(modules);
    for (const row of SERVER_ACTIONS) {
      const exported = [...readFileSync(row.file, 'utf8').matchAll(/export async function (\w+)/g)].map((m) => m[1]!);
      expect(row.exports.sort(), row.file).toEqual(exported.sort());
    }
  });
});
