import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';
import type { RecordedSummary } from '../recorder';
import { listenProxy } from './loopback-proxy';

/**
 * The recording proxy on loopback, in front of the project's own model server, with two users and
 * their tokens: shared by the proxy's test files (each its own data directory). The bindings are
 * live: read them inside tests, after set-up.
 */

// The runtime reads its environment once: set it before importing anything that opens stores.
const root = mkdtempSync(join(tmpdir(), 'proxy-unit-'));
export const dataDir = join(root, 'data');
process.env.OPENPROGRAM_DATA_DIR = dataDir;
process.env.OPENPROGRAM_PROXY_TIMEOUT_MS = '1500';

export let model: ModelServer;
let proxy: Awaited<ReturnType<typeof listenProxy>>;
export let origin: string;
export let runtime: typeof import('@/server/runtime');
let recorder: typeof import('../recorder');
export const users: { id: string; token: string }[] = [];
const recorded: (RecordedSummary & { userId: string })[] = [];

/** The next recording of `userId` (they are committed after the client has its answer). */
export function nextRecording(userId: string, count = 1): Promise<(RecordedSummary & { userId: string })[]> {
  const start = recorded.filter((entry) => entry.userId === userId).length;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no recording came')), 5_000);
    const check = () => {
      const mine = recorded.filter((entry) => entry.userId === userId);
      if (mine.length >= start + count) {
        clearTimeout(timer);
        resolve(mine.slice(start, start + count));
      } else setTimeout(check, 5);
    };
    check();
  });
}

/** Registers the harness's set-up and tear-down in the calling test file. */
export function useProxyHarness(): void {
beforeAll(async () => {
  model = await startModelServer();
  process.env.OPENPROGRAM_PROXY_ANTHROPIC_URL = model.root;
  process.env.OPENPROGRAM_PROXY_OPENAI_URL = model.url;
  runtime = await import('@/server/runtime');
  recorder = await import('../recorder');
  recorder.onRecorded((summary) => recorded.push(summary));
  const auth = runtime.getAuthStore();
  for (const email of ['a@proxy.test', 'b@proxy.test']) {
    const user = await auth.users.create({ email, password: 'password-123456' });
    users.push({ id: user.id, token: (await auth.tokens.create(user.id, { name: 'agent' })).token });
  }
  proxy = await listenProxy();
  origin = proxy.origin;
});

afterAll(async () => {
  await proxy.close();
  for (const user of users) await (await runtime.getUserStore(user.id)).close();
  await model.close();
  rmSync(root, { recursive: true, force: true });
});
}

export const anthropicFor = (token: string, headers: Record<string, string> = {}) => new Anthropic({ apiKey: token, baseURL: `${origin}/proxy/anthropic`, defaultHeaders: headers, maxRetries: 0 });
export const openaiFor = (token: string, headers: Record<string, string> = {}) => new OpenAI({ apiKey: token, baseURL: `${origin}/proxy/openai/v1`, defaultHeaders: headers, maxRetries: 0 });
export const WRITE = { name: 'Write', description: 'write a file', input_schema: { type: 'object' as const, properties: {} } };


/** Every file below `dir` as text (but `except`): where a secret must not be. */
export function readTree(dir: string, except?: string): string {
  let out = '';
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out += readTree(path, except);
    else if (path !== except && statSync(path).size < 5_000_000) out += readFileSync(path, 'latin1');
  }
  return out;
}
