import { describe, expect, it } from 'vitest';
import { isCrossOriginRequest, isCrossOriginServerAction, isMalformedServerActionBody } from './origin.js';

const h = (init: Record<string, string>) => new Headers(init);

describe('isCrossOriginRequest', () => {
  it('accepts our own origin, by Host or by NEXTAUTH_URL', () => {
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: 'https://app.example.org' }), undefined)).toBe(false);
    expect(isCrossOriginRequest(h({ host: '127.0.0.1:3100', origin: 'http://localhost:3100' }), 'http://localhost:3100')).toBe(false);
  });

  it('accepts a request without Origin (not a browser page)', () => {
    expect(isCrossOriginRequest(h({ host: 'app.example.org' }), undefined)).toBe(false);
  });

  it('refuses another origin, a null origin, garbage and cross-site fetch metadata', () => {
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: 'https://evil.example' }), undefined)).toBe(true);
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: 'https://app.example.org.evil.example' }), undefined)).toBe(true);
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: 'null' }), undefined)).toBe(true);
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: '::' }), undefined)).toBe(true);
    expect(isCrossOriginRequest(h({ host: 'app.example.org', 'sec-fetch-site': 'cross-site' }), undefined)).toBe(true);
  });

  it('trusts X-Forwarded-Host only behind a trusted proxy', () => {
    const forged = h({ host: 'app.example.org', origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' });
    expect(isCrossOriginRequest(forged, undefined, false)).toBe(true);
    expect(isCrossOriginRequest(forged, 'http://app.example.org', false)).toBe(true);
    const proxied = h({ host: '10.0.0.5:3000', origin: 'https://app.example.org', 'x-forwarded-host': 'app.example.org', 'x-forwarded-proto': 'https' });
    expect(isCrossOriginRequest(proxied, undefined, true)).toBe(false);
    expect(isCrossOriginRequest(proxied, undefined, false)).toBe(true);
  });

  it('compares the scheme whenever it is known: NEXTAUTH_URL, or a trusted proxy', () => {
    const app = 'http://localhost:3100';
    expect(isCrossOriginRequest(h({ host: 'localhost:3100', origin: 'https://localhost:3100' }), app, false)).toBe(true);
    expect(isCrossOriginRequest(h({ host: 'localhost:3100', origin: 'http://localhost:3100' }), app, false)).toBe(false);
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: 'https://app.example.org' }), 'http://app.example.org', false)).toBe(true);
    const behind = (origin: string, proto: string) => h({ host: 'app.example.org', origin, 'x-forwarded-proto': proto });
    expect(isCrossOriginRequest(behind('http://app.example.org', 'https'), undefined, true)).toBe(true);
    expect(isCrossOriginRequest(behind('https://app.example.org', 'https'), undefined, true)).toBe(false);
    // An untrusted X-Forwarded-Proto decides nothing.
    expect(isCrossOriginRequest(behind('https://app.example.org', 'https'), app.replace('localhost:3100', 'app.example.org'), false)).toBe(true);
    expect(isCrossOriginRequest(h({ host: 'app.example.org', origin: 'ftp://app.example.org' }), undefined, false)).toBe(true);
  });
});

describe('isCrossOriginServerAction', () => {
  const action = (extra: Record<string, string>) => new Headers({ host: 'app.example', 'next-action': 'abc123', ...extra });
  it('is a POST with next-action from another origin only', () => {
    expect(isCrossOriginServerAction('POST', action({ origin: 'https://evil.example' }), undefined, false)).toBe(true);
    expect(isCrossOriginServerAction('POST', action({ origin: 'null' }), undefined, false)).toBe(true);
    expect(isCrossOriginServerAction('POST', action({ 'sec-fetch-site': 'cross-site' }), undefined, false)).toBe(true);
    expect(isCrossOriginServerAction('POST', action({ origin: 'http://app.example' }), undefined, false)).toBe(false);
    expect(isCrossOriginServerAction('GET', action({ origin: 'https://evil.example' }), undefined, false)).toBe(false);
    expect(isCrossOriginServerAction('POST', new Headers({ host: 'app.example', origin: 'https://evil.example' }), undefined, false)).toBe(false);
  });
});

describe('isMalformedServerActionBody', () => {
  const text = new Headers({ 'content-type': 'text/plain;charset=UTF-8' });
  it('is a text body that is not JSON; a form is not judged here', () => {
    expect(isMalformedServerActionBody(text, 'not json')).toBe(true);
    expect(isMalformedServerActionBody(text, '')).toBe(true);
    expect(isMalformedServerActionBody(text, '[{"sessionId":"x"}]')).toBe(false);
    expect(isMalformedServerActionBody(new Headers({ 'content-type': 'multipart/form-data; boundary=x' }), 'anything')).toBe(false);
  });
});
