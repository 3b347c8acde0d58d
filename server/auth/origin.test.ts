import { describe, expect, it } from 'vitest';
import { isCrossOriginRequest } from './origin.js';

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
});
