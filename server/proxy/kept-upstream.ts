/**
 * The upstream a recorded reply can be retried through, read off its metadata (the recorder marks
 * a reply whose request it kept: `proxy.request_kept`), with the model it asked for. Null for
 * any other reply. Whether the user has a key for that upstream now is chat.state's to say.
 */
export interface KeptUpstream {
  upstream: string;
  model: string;
}

export function keptUpstreamOf(metadata: Record<string, unknown>): KeptUpstream | null {
  const proxy = metadata['proxy'];
  if (typeof proxy !== 'object' || proxy === null) return null;
  const { upstream, request_kept: kept } = proxy as Record<string, unknown>;
  if (kept !== true || typeof upstream !== 'string') return null;
  const model = typeof metadata['model'] === 'string' ? metadata['model'] : '';
  return { upstream, model };
}
