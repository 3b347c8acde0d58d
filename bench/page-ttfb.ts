/** A signed-in page's first byte, warm, from the built server on BENCH_PORT (the usage bench; next-auth's credentials flow). */
import http from 'node:http';
import { signInCookie, timedRequest } from './http-client.js';
import { BASE } from './server-bench.js';

/** 30 first bytes of `path` after 10 warm-ups; each answer must be a 200 holding `expected`. */
export async function pageFirstBytes(path: string, email: string, password: string, expected: string): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true });
  try {
    const cookie = await signInCookie(BASE, agent, email, password);
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) {
      const answer = await timedRequest(BASE, agent, 'GET', path, { cookie, accept: 'text/html' });
      if (answer.status !== 200 || !answer.body.includes(expected)) throw new Error(`${path}: ${answer.status}`);
      if (i >= 10) samples.push(answer.ttfb);
    }
    return samples;
  } finally {
    agent.destroy();
  }
}
