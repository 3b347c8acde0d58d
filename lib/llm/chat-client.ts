/**
 * OpenAI-compatible chat-completions client (streaming), on node's fetch. Only what the app
 * needs: a completion as text, or its deltas as they arrive.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface ChatModel {
  readonly model: string;
  complete(request: ChatRequest): Promise<string>;
  stream(request: ChatRequest, onDelta: (delta: string) => void): Promise<string>;
}

export interface ChatClientOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** ms before a request without any answer is given up */
  timeoutMs?: number;
}

export class ModelError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

export function createChatClient(options: ChatClientOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;

  async function post(request: ChatRequest, stream: boolean): Promise<Response> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 120_000);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers,
        signal,
        body: JSON.stringify({
          model: options.model,
          messages: request.messages,
          stream,
          ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        }),
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw new ModelError(`the model server at ${options.baseUrl} could not be reached: ${(error as Error).message}`);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new ModelError(`the model server answered ${response.status}: ${text.slice(0, 300)}`, response.status);
    }
    return response;
  }

  return {
    model: options.model,
    async complete(request) {
      const response = await post(request, false);
      const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new ModelError('the model answered without a message');
      return content;
    },
    async stream(request, onDelta) {
      const response = await post(request, true);
      if (!response.body) throw new ModelError('the model answered without a body');
      let text = '';
      for await (const data of serverSentData(response.body)) {
        if (data === '[DONE]') break;
        let chunk: { choices?: { delta?: { content?: unknown } }[] };
        try {
          chunk = JSON.parse(data) as typeof chunk;
        } catch {
          continue; // a keep-alive or a vendor extension
        }
        const delta = chunk.choices?.[0]?.delta?.content;
        if (typeof delta === 'string' && delta !== '') {
          text += delta;
          onDelta(delta);
        }
      }
      return text;
    },
  };
}

/** The `data:` payloads of a server-sent-event body. */
export async function* serverSentData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
  if (data.length > 0) yield data.join('\n');
}

/** The configured model, or null: chat and model titles are optional (DESIGN §8). */
export function chatModelFromEnv(env: NodeJS.ProcessEnv = process.env): ChatModel | null {
  const baseUrl = env['OPENPROGRAM_LLM_BASE_URL'];
  const model = env['OPENPROGRAM_LLM_MODEL'];
  if (!baseUrl || !model) return null;
  return createChatClient({ baseUrl, model, apiKey: env['OPENPROGRAM_LLM_API_KEY'] });
}
