/** A signed-in page's first byte, warm, from the built server on BENCH_PORT (the usage bench; next-auth's credentials flow). */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { BASE } from './server-bench.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ttfb: number;
}

function send(agent: http.Agent, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(`${BASE}${path}`, { method, agent, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      let ttfb = -1;
      res.on('data', (chunk: Buffer) => {
        if (ttfb < 0) ttfb = performance.now() - start;
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ttfb }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const cookiesOf = (answer: Answer) => (answer.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!);

/** 30 first bytes of `path` after 10 warm-ups; each answer must be a 200 holding `expected`. */
export async function pageFirstBytes(path: string, email: string, password: string, expected: string): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const csrf = await send(agent, 'GET', '/api/auth/csrf', {});
    const jar = cookiesOf(csrf);
    const { csrfToken } = JSON.parse(csrf.body.toString()) as { csrfToken: string };
    const form = new URLSearchParams({ email, password, csrfToken }).toString();
    const signedIn = await send(agent, 'POST', '/api/auth/callback/credentials', { cookie: jar.join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: BASE }, form);
    const cookie = [...jar, ...cookiesOf(signedIn)].join('; ');
    if (!/session-token=/.test(cookie)) throw new Error(`sign-in failed: ${signedIn.status}`);
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) {
      const answer = await send(agent, 'GET', path, { cookie, accept: 'text/html' });
      if (answer.status !== 200 || !answer.body.includes(expected)) throw new Error(`${path}: ${answer.status}`);
      if (i >= 10) samples.push(answer.ttfb);
    }
    return samples;
  } finally {
    agent.destroy();
  }
}
