import { defineConfig } from '@playwright/test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, MODEL_NAME, MODEL_PORT, MODEL_URL, PORT, e2eDataDir } from './e2e/fixtures/env';
import { e2eRuntime, startScript } from './e2e/fixtures/runtime';

const dataDir = e2eDataDir();

// Debian's chromium: Playwright's own browser download cannot work on these machines.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export default defineConfig({
  forbidOnly: true,
  retries: 0,
  // One worker: tests check that refused requests wrote nothing to the shared data directory.
  workers: 1,
  reporter: [['list']],
  // scripts/run-e2e.mjs runs the API project beside the browser projects: each its own output folder.
  outputDir: process.env.E2E_OUTPUT_DIR ?? 'test-results',
  timeout: 60_000,
  use: { baseURL: BASE_URL },
  projects: [
    { name: 'api', testDir: 'e2e/api' },
    {
      name: 'e2e',
      testDir: 'e2e/ui',
      use: { browserName: 'chromium', launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs } },
    },
    // The app served by Bun and by Deno, each spec starting its own server.
    {
      name: 'runtimes',
      testDir: 'e2e/runtimes',
      use: { browserName: 'chromium', launchOptions: { executablePath: '/usr/bin/chromium', args: chromiumArgs } },
    },
  ],
  webServer: [
    // The project's own OpenAI-compatible model server on loopback (DESIGN §8: never a mock in the app).
    {
      command: `node_modules/.bin/tsx lib/llm/testing/model-server.ts ${MODEL_PORT}`,
      port: MODEL_PORT,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    // The built app on an empty data directory, on node (E2E_RUNTIME=bun|deno: on that runtime).
    // pretest:e2e builds when needed; the start script checks again and builds a stale build
    // itself (a direct `npx playwright test` after an edit), hence the timeout.
    {
      command: `npm run ${startScript(e2eRuntime())} -- -p ${PORT}`,
      url: `${BASE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 300_000,
      // SIGTERM, so the server's handlers flush and release the data-directory lock.
      gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
      stdout: 'pipe',
      env: {
        OPENPROGRAM_DATA_DIR: dataDir,
        OPENPROGRAM_ADMIN_EMAIL: ADMIN_EMAIL,
        OPENPROGRAM_ADMIN_PASSWORD: ADMIN_PASSWORD,
        NEXTAUTH_URL: BASE_URL,
        OPENPROGRAM_LLM_BASE_URL: MODEL_URL,
        OPENPROGRAM_LLM_MODEL: MODEL_NAME,
        // The recording proxy's upstreams: the same loopback model server (DESIGN §12).
        OPENPROGRAM_PROXY_ANTHROPIC_URL: MODEL_URL.replace(/\/v1$/, ''),
        OPENPROGRAM_PROXY_OPENAI_URL: MODEL_URL,
      },
    },
  ],
});
