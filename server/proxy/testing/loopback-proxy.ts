import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The recording proxy's handler on a loopback port. Imported when called: after the test has set
 * the environment the runtime reads once. `close` drops the open connections first.
 */
export async function listenProxy(): Promise<{ server: http.Server; origin: string; close(): Promise<void> }> {
  const { serveProxy } = await import('../handler');
  const server = http.createServer((req, res) => void serveProxy(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
