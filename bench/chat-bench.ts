/**
 * chat_overhead_p50_ms (DESIGN §9): a whole turn through chat.send over HTTP — the user node,
 * the streamed reply as chat_delta events, the reply node, the context file, the turn commit,
 * chat_done on the event stream — minus the model's own time, measured by the loopback test
 * model server itself (request received → answer sent). Needs `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { startModelServer } from '../lib/llm/testing/model-server.js';
import { benchRequest, openEventStream } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer } from './server-bench.js';
import { p50, round } from './store-bench.js';
import { requireBuild } from './figures.js';

const TURNS = 60;
const WARMUP = 10;
const agent = new http.Agent({ keepAlive: true });

function post(path: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  return benchRequest(BASE, agent, 'POST', path, token, body);
}

/** The event stream; `onDone` gets the arrival time of each chat_done. */
function openStream(token: string, onDone: (at: number) => void): Promise<http.ClientRequest> {
  return openEventStream(BASE, token, (type, at) => {
    if (type === 'chat_done') onDone(at);
  });
}

export async function benchChat(): Promise<Record<string, number>> {
  requireBuild('the chat figures');
  const model = await startModelServer();
  const dataDir = scratchDir('em-bench-chat-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: 'chat@bench.test', password: 'bench password long', admin: true });
  const token = (await auth.tokens.create(user.id, { name: 'bench' })).token;
  auth.flushSync();
  let server: ChildProcess | null = null;
  let stream: http.ClientRequest | null = null;
  try {
    server = await startServer(dataDir, { OPENPROGRAM_LLM_BASE_URL: model.url, OPENPROGRAM_LLM_MODEL: 'bench-model' });
    let waiting: ((at: number) => void) | null = null;
    stream = await openStream(token, (at) => waiting?.(at));
    let sessionId: string | undefined;
    const overhead: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const done = new Promise<number>((resolve) => (waiting = resolve));
      const before = model.requests.length;
      const start = performance.now();
      const answer = await post('/api/trpc/chat.send', token, { content: `bench turn ${i}: tell me something`, ...(sessionId ? { sessionId } : {}) });
      if (answer.status !== 200) throw new Error(`chat.send: ${answer.status} ${answer.body.slice(0, 200)}`);
      sessionId ??= (JSON.parse(answer.body) as { result: { data: { sessionId: string } } }).result.data.sessionId;
      const end = await done;
      // The chat requests of this turn (title requests run in the background, after chat_done).
      const modelMs = model.requests
        .slice(before)
        .filter((request) => request.body.stream)
        .reduce((sum, request) => sum + (request.durationMs ?? 0), 0);
      if (i >= WARMUP) overhead.push(end - start - modelMs);
      // Let the background title request of turns 1/6/16/40 finish outside the timed window.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { chat_overhead_p50_ms: round(p50(overhead)) };
  } finally {
    stream?.destroy();
    agent.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    await model.close();
  }
}
