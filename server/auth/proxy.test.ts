import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clientIp } from './client-ip.js';
import { settleForwardedHeaders, trustProxy } from './proxy.js';
import { answerRateLimitedSignIns, markRateLimited, SIGN_IN_REQUEST_HEADER } from './sign-in-status.js';

afterEach(() => {
  delete process.env.OPENPROGRAM_TRUST_PROXY;
});

describe('forwarded headers', () => {
  it('are the client\'s own words without a trusted proxy: replaced by the socket address', () => {
    const headers: http.IncomingHttpHeaders = {
      host: 'app.example.org',
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-host': 'evil.example',
      forwarded: 'for=6.6.6.6',
      'x-real-ip': '6.6.6.6',
      'x-forwarded-proto': 'https',
    };
    settleForwardedHeaders(headers, '203.0.113.7', false);
    expect(headers).toEqual({ host: 'app.example.org', 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https' });
    expect(clientIp(headers)).toBe('203.0.113.7');
  });

  it('are kept behind a trusted proxy (OPENPROGRAM_TRUST_PROXY)', () => {
    expect(trustProxy()).toBe(false);
    process.env.OPENPROGRAM_TRUST_PROXY = '1';
    expect(trustProxy()).toBe(true);
    const headers: http.IncomingHttpHeaders = { 'x-forwarded-for': '198.51.100.1, 10.0.0.2', 'x-forwarded-host': 'app.example.org' };
    settleForwardedHeaders(headers, '10.0.0.2');
    expect(headers['x-forwarded-host']).toBe('app.example.org');
    expect(clientIp(headers)).toBe('10.0.0.2');
  });
});

describe('rate-limited sign-in answers', () => {
  it('become 429 with Retry-After when authorize marked them; redirects and other requests stay as they are', async () => {
    const server = http.createServer((req, res) => {
      req.headers[SIGN_IN_REQUEST_HEADER] = 'forged-by-client';
      answerRateLimitedSignIns(req, res);
      expect(req.headers[SIGN_IN_REQUEST_HEADER]).not.toBe('forged-by-client');
      const limited = req.url !== '/ok';
      if (limited) markRateLimited(req.headers as Record<string, unknown>, 4_200);
      if (req.url === '/redirect') res.writeHead(302, { location: '/signin?error=x' }).end();
      else {
        res.statusCode = 401;
        res.end('{"url":"/signin?error=x"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const limited = await fetch(`${base}/limited`, { method: 'POST' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('5');
      expect(await limited.json()).toEqual({ url: '/signin?error=x' });
      expect((await fetch(`${base}/ok`, { method: 'POST' })).status).toBe(401);
      expect((await fetch(`${base}/redirect`, { method: 'POST', redirect: 'manual' })).status).toBe(302);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
