/**
 * The proxy's planning thread (plan-pool.ts starts it): reads finished exchanges (request JSON,
 * fingerprints, the reply put back together from the stream) so the request threads only
 * forward bytes. Lowers its own priority first: on a busy machine forwarding goes before recording.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { planExchange, type ExchangeBytes } from '../../lib/proxy/plan';

try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 10);
} catch {
  // not Linux, or not allowed: the process's priority
}

parentPort!.on('message', ({ id, exchange }: { id: number; exchange: ExchangeBytes }) => {
  try {
    parentPort!.postMessage({ id, plan: planExchange(exchange) });
  } catch (error) {
    parentPort!.postMessage({ id, error: (error as Error).message });
  }
});
parentPort!.postMessage({ ready: true });
