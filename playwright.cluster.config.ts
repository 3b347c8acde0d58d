import { defineConfig } from '@playwright/test';

// `npm run test:cluster`: the cluster e2e (e2e/cluster), which starts its own Postgres, HAProxy
// and instances (e2e/cluster/harness.ts) instead of the one server of playwright.config.ts.
export default defineConfig({
  testDir: 'e2e/cluster',
  forbidOnly: true,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  timeout: 120_000,
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
});
