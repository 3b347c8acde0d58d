/**
 * Detection of a local OpenAI-compatible server (an admin switches it on): the usual ports of
 * the common ones, on 127.0.0.1 only, asked for `/v1/models`. Never another host: detection
 * must not become a way to probe the network.
 */
export interface LocalServerKind {
  name: string;
  port: number;
}

const LOCAL_SERVERS: readonly LocalServerKind[] = [
  { name: 'Ollama', port: 11434 },
  { name: 'LM Studio', port: 1234 },
  { name: 'llama.cpp', port: 8080 },
  { name: 'vLLM', port: 8000 },
];

export interface DetectedServer {
  name: string;
  port: number;
  baseUrl: string;
  models: string[];
}

/** The servers that answered with a model list, in the order of `servers`. */
export async function detectLocalServers(servers: readonly LocalServerKind[] = LOCAL_SERVERS, timeoutMs = 500): Promise<DetectedServer[]> {
  const found = await Promise.all(servers.map((server) => probe(server, timeoutMs)));
  return found.filter((server): server is DetectedServer => server !== null);
}

async function probe(server: LocalServerKind, timeoutMs: number): Promise<DetectedServer | null> {
  const baseUrl = `http://127.0.0.1:${server.port}/v1`;
  try {
    const response = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    if (!response.ok) return null;
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    if (!Array.isArray(body.data)) return null;
    const models = body.data.map((entry) => entry.id).filter((id): id is string => typeof id === 'string' && id !== '');
    return { name: server.name, port: server.port, baseUrl, models };
  } catch {
    return null;
  }
}
