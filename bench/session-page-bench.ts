/**
 * The session page of a 10,000-message session (DESIGN §9): HTML bytes of `/sessions/<id>` and
 * its first byte, warm. The built app as `npm start` runs it, a user signed in by next-auth's
 * credentials flow, the session written by the store before the server starts. Needs `npm run build`.
 */
import { type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { AuthStore } from '../lib/auth/index.js';
import { SessionStore } from '../lib/store/index.js';
import { signInCookie, timedRequest } from './http-client.js';
import { scratchDir } from './scratch.js';
import { startServer } from './server-bench.js';
import { p50, round } from './store-bench.js';
import { requireBuild } from './figures.js';

const PORT = Number(process.env['BENCH_PORT'] ?? 3199);
const BASE = `http://127.0.0.1:${PORT}`;
const MESSAGES = 10_000;
const EMAIL = 'session-bench@bench.test';
const PASSWORD = 'bench password long';
const agent = new http.Agent({ keepAlive: true });

const send = (method: 'GET' | 'POST', path: string, headers: Record<string, string>) => timedRequest(BASE, agent, method, path, headers);
const signIn = () => signInCookie(BASE, agent, EMAIL, PASSWORD);

/** A long conversation with the usual mix: prose, lists, now and then a code block. */
function contentOf(i: number): string {
  if (i % 2 === 0) return `Question ${i}: how should the ${i % 7 === 0 ? 'parser' : 'cache'} handle the case where the input is empty or malformed?`;
  const code = i % 10 === 1 ? `\n\n\`\`\`ts\nexport function handle${i}(input: string): number {\n  if (!input) return 0;\n  return input.split(',').length;\n}\n\`\`\`` : '';
  return `Answer ${i}. Check the input first, then:\n\n- return **early** when it is empty\n- report the position of the first bad character\n- keep the happy path fast${code}`;
}

export async function benchSessionPage(): Promise<Record<string, number>> {
  requireBuild('the session page figures');
  const dataDir = scratchDir('em-bench-session-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: EMAIL, password: PASSWORD, admin: true });
  auth.flushSync();
  const workspaceRoot = join(dataDir, 'workspaces', user.id);
  mkdirSync(workspaceRoot, { recursive: true });
  const store = await SessionStore.open({ stateDir: join(dataDir, 'users', user.id), workspaceRoot });
  await store.createSession({ id: 'long', title: 'Ten thousand messages' });
  for (let i = 0; i < MESSAGES; i++) {
    await store.appendMessage('long', { role: i % 2 ? 'assistant' : 'user', content: contentOf(i) });
    if (i % 2000 === 1999) await store.finalizeTurn('long');
  }
  await store.close();

  let server: ChildProcess | null = null;
  try {
    server = await startServer(dataDir);
    const cookie = await signIn();
    const page = () => send('GET', '/sessions/long', { cookie, accept: 'text/html' });
    // Warm: the store opens the session, the highlighter loads its language, V8 optimises.
    for (let i = 0; i < 10; i++) {
      const warm = await page();
      if (warm.status !== 200) throw new Error(`/sessions/long: ${warm.status}`);
    }
    const firstBytes: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 30; i++) {
      const answer = await page();
      if (answer.status !== 200 || !answer.body.includes('Ten thousand messages')) throw new Error(`/sessions/long: ${answer.status}`);
      firstBytes.push(answer.ttfb);
      bytes = answer.body.length;
    }
    return { session_html_kb_10k: round(bytes / 1024), session_ttfb_p50_ms_10k: p50(firstBytes) };
  } finally {
    agent.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
}
