import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** One JSON request with a Bearer token; the answer's status and text. */
export function benchRequest(base: string, agent: http.Agent, method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${base}${path}`,
      { method, agent, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Open the server's SSE stream; resolves once connected, calls onEvent with each event's arrival time. */
export function openEventStream(base: string, token: string, onEvent: (type: string, at: number, data: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/events`, { agent: false, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`events: ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.+)$/m.exec(block)?.[1];
          if (type) onEvent(type, at, /^data: (.*)$/m.exec(block)?.[1] ?? '');
        }
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

export interface TimedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** ms from sending the request to the first byte of the answer's body */
  ttfb: number;
}

/** One request, its answer whole and the time to its first byte. */
export function timedRequest(base: string, agent: http.Agent, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<TimedAnswer> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.request(`${base}${path}`, { method, agent, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
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

const cookiesOf = (answer: TimedAnswer) => (answer.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!);

/** next-auth's credentials flow, as a browser goes through it; answers the signed-in Cookie header. */
export async function signInCookie(base: string, agent: http.Agent, email: string, password: string): Promise<string> {
  const csrf = await timedRequest(base, agent, 'GET', '/api/auth/csrf', {});
  const jar = cookiesOf(csrf);
  const { csrfToken } = JSON.parse(csrf.body.toString()) as { csrfToken: string };
  const form = new URLSearchParams({ email, password, csrfToken }).toString();
  const signedIn = await timedRequest(base, agent, 'POST', '/api/auth/callback/credentials', { cookie: jar.join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: base }, form);
  const cookie = [...jar, ...cookiesOf(signedIn)].join('; ');
  if (!/session-token=/.test(cookie)) throw new Error(`sign-in failed: ${signedIn.status}`);
  return cookie;
}
