import type { UpstreamKind } from '@/lib/auth/index';

/**
 * An error the proxy itself answers, in the shape the agent's SDK already parses: Anthropic's
 * `{type: "error", error: {type, message}}` or OpenAI's `{error: {message, type, param, code}}`.
 */
export function providerError(kind: UpstreamKind | null, status: number, message: string): { status: number; body: string } {
  if (kind === 'anthropic') {
    const type = status === 401 ? 'authentication_error' : status === 404 ? 'not_found_error' : status === 413 ? 'request_too_large' : status === 400 || status === 405 ? 'invalid_request_error' : status === 429 ? 'rate_limit_error' : status === 504 ? 'timeout_error' : 'api_error';
    return { status, body: JSON.stringify({ type: 'error', error: { type, message } }) };
  }
  // OpenAI's own 429: type `requests`, code `rate_limit_exceeded`.
  const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 401 ? 'invalid_api_key' : status === 404 ? 'not_found' : status === 413 ? 'request_too_large' : status === 429 ? 'rate_limit_exceeded' : null;
  return { status, body: JSON.stringify({ error: { message, type, param: null, code } }) };
}
