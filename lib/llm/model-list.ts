/**
 * `GET <baseUrl>/models` of an OpenAI-compatible server: the model ids it serves, or what went
 * wrong in words a person can act on (refused, no answer in time, 401, not a model list). Saving
 * a model URL tests it this way, and the admin's model field lists what it returns.
 */
export type ModelListResult = { ok: true; models: string[] } | { ok: false; error: string };

const DEFAULT_TIMEOUT_MS = 5_000;

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused (is the server running, on that port?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
};

/** The reason of a failed fetch, from the error's cause code when there is one. */
export function describeFetchFailure(error: unknown, timeoutMs: number): string {
  const failure = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (failure?.name === 'TimeoutError' || failure?.name === 'AbortError') return `no answer within ${Math.round(timeoutMs / 100) / 10} s`;
  const code = failure?.cause?.code;
  if (code && NETWORK_WORDS[code]) return NETWORK_WORDS[code]!;
  return failure?.cause?.message ?? failure?.message ?? String(error);
}

export async function fetchModelList(
  baseUrl: string,
  options: { apiKey?: string | null; timeoutMs?: number } = {},
): Promise<ModelListResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const url = `${baseUrl.replace(/\/+$/, '')}/models`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    return { ok: false, error: `${url}: ${describeFetchFailure(error, timeoutMs)}` };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const hint = response.status === 401 || response.status === 403 ? ' (check the API key)' : response.status === 404 ? ' (is the URL the one ending in /v1?)' : '';
    return { ok: false, error: `${url} answered ${response.status} ${response.statusText}${hint}`.replace(/ +$/, '') };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { ok: false, error: `${url} did not answer with JSON (is it an OpenAI-compatible server?)` };
  }
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) return { ok: false, error: `${url} did not answer with a model list (no "data" array)` };
  const models = data.map((entry) => (entry as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string' && id !== '');
  return { ok: true, models: [...new Set(models)] };
}
