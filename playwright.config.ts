import { defineConfig } from '@playwright/test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, MODEL_NAME, MODEL_PORT, MODEL_URL, PORT, e2eDataDir } from './e2e/fixtures/env';

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
  timeout: 60_000,
  use: { baseURL: BASE_URL },
  projects: [
    { name: 'api', testDir: 'e2e/api' },
    {
      name: 'e2e',
      testDir: 'e2e/ui',
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
    // The built app (npm run build; pretest:e2e builds when needed), on an empty data directory.
    {
      command: `npm start -- -p ${PORT}`,
      url: `${BASE_URL}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
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
      },
    },
  ],
});
