import { describe, expect, it } from 'vitest';
import type { UpstreamKind } from '@/lib/auth/index';
import { matchProxyRoute } from './routes';
import { providerError } from './provider-errors';

const kinds: Record<string, UpstreamKind> = { anthropic: 'anthropic', openai: 'openai', local: 'openai' };
const kindOf = (name: string) => kinds[name] ?? null;

describe('matchProxyRoute', () => {
  it('maps each endpoint to its wire and the path after the upstream base URL (OpenAI bases end in /v1)', () => {
    expect(matchProxyRoute('POST', '/proxy/anthropic/v1/messages?beta=true', kindOf)).toEqual({ upstream: 'anthropic', wire: 'anthropic', kind: 'anthropic', upstreamPath: '/v1/messages?beta=true', method: 'POST' });
    expect(matchProxyRoute('POST', '/proxy/anthropic/v1/messages/count_tokens', kindOf)).toMatchObject({ wire: null, upstreamPath: '/v1/messages/count_tokens' });
    expect(matchProxyRoute('POST', '/proxy/openai/v1/responses', kindOf)).toMatchObject({ wire: 'responses', upstreamPath: '/responses' });
    expect(matchProxyRoute('POST', '/proxy/local/v1/chat/completions', kindOf)).toMatchObject({ upstream: 'local', wire: 'chat', upstreamPath: '/chat/completions' });
    expect(matchProxyRoute('GET', '/proxy/openai/v1/models', kindOf)).toMatchObject({ wire: null, upstreamPath: '/models', method: 'GET' });
  });

  it('refuses an unknown upstream, an endpoint of the other provider and the wrong method', () => {
    expect(matchProxyRoute('POST', '/proxy/nope/v1/messages', kindOf)).toMatchObject({ error: 'no_upstream', upstream: 'nope' });
    expect(matchProxyRoute('POST', '/proxy/anthropic/v1/responses', kindOf)).toMatchObject({ error: 'unknown', kind: 'anthropic' });
    expect(matchProxyRoute('POST', '/proxy/openai/v1/../../api/trpc', kindOf)).toMatchObject({ error: 'unknown' });
    expect(matchProxyRoute('GET', '/proxy/openai/v1/responses', kindOf)).toMatchObject({ error: 'method' });
  });

  it('takes an upstream name with malformed percent-escapes for no upstream, not a throw (it was a 502 with a stack)', () => {
    expect(matchProxyRoute('POST', '/proxy/%E0%A4%A/v1/messages', kindOf)).toEqual({ error: 'no_upstream', upstream: '%E0%A4%A', kind: null });
    expect(matchProxyRoute('POST', '/proxy/%/v1/messages', kindOf)).toMatchObject({ error: 'no_upstream' });
    expect(matchProxyRoute('POST', '/proxy/%61nthropic/v1/messages', kindOf)).toMatchObject({ upstream: 'anthropic', wire: 'anthropic' });
  });
});

describe('providerError', () => {
  it("answers in each provider's own error shape", () => {
    expect(JSON.parse(providerError('anthropic', 401, 'no key').body)).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'no key' } });
    expect(JSON.parse(providerError('anthropic', 413, 'big').body).error.type).toBe('request_too_large');
    expect(JSON.parse(providerError('openai', 401, 'no key').body)).toEqual({ error: { message: 'no key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    expect(JSON.parse(providerError('openai', 502, 'down').body).error.type).toBe('server_error');
  });
});
