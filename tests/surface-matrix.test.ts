import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PAGES, ROUTES, SERVE_PATHS, SERVER_ACTIONS, type SurfaceIds } from '../e2e/fixtures/surface-matrix';

/** Every file below `dir` (relative to the repository), `/`-separated. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((path) => join(dir, path).split('\\').join('/'));
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
    const serve = readFileSync('server/http/serve.ts', 'utf8');
    const literals = [...serve.matchAll(/url(?:\.startsWith\(|\s*===\s*)'([^'?]+)'/g)].map((m) => m[1]!);
    if (serve.includes('url.startsWith(PROXY_PREFIX)')) literals.push('/proxy/');
    expect([...new Set(literals)].sort()).toEqual([...SERVE_PATHS].sort());
    for (const prefix of SERVE_PATHS) {
      expect(ROUTES.some((row) => row.url(IDS).startsWith(prefix)), prefix).toBe(true);
    }
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
