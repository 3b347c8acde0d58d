/**
 * OpenAI-compatible chat-completions client (streaming), on node's fetch. Only what the app
 * needs: a completion as text, or its deltas as they arrive.
 */
import { errorBodyMessage } from './error-body.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A function call the model asked for (OpenAI `tool_calls`); `arguments` is JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The messages of a conversation with tools: an assistant turn may call tools, a tool message answers one call. */
export type ToolChatMessage =
  | ChatMessage
  | { role: 'assistant'; content: string | null; tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface ToolChatRequest extends Omit<ChatRequest, 'messages'> {
  messages: ToolChatMessage[];
  tools?: ToolSpec[];
}

export interface StreamedReply {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  /** the stream's last `usage` (asked for with stream_options.include_usage); null when the server sent none */
  usage: Record<string, unknown> | null;
  /** ms from the request to the first byte of the answer, and to its end */
  ttfbMs: number | null;
  durationMs: number;
}

export interface ChatModel {
  readonly model: string;
  complete(request: ChatRequest): Promise<string>;
  stream(request: ChatRequest, onDelta: (delta: string) => void): Promise<string>;
  /** A streamed reply that may call tools: text deltas as they arrive, the calls assembled at the end. */
  streamChat(request: ToolChatRequest, onDelta: (delta: string) => void): Promise<StreamedReply>;
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

/** Redirects followed within the model server's origin before giving up. */
const MAX_REDIRECTS = 5;

/**
 * One call's time limit, from the request to the stream's last byte. A timer of our own, held
 * until `clear()`: `AbortSignal.timeout` joined with `AbortSignal.any` is only weakly held on
 * Node 20 and gets collected in the middle of a stream, so a trickling model never timed out.
 */
function callDeadline(ms: number, callerSignal: AbortSignal | undefined) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`the model call took longer than ${ms} ms`, 'TimeoutError'));
  }, ms);
  const forward = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) forward();
  else callerSignal?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    /** performance.now() at the call's start: where its latencies are measured from */
    startedAt: performance.now(),
    timedOut: () => timedOut,
    clear() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', forward);
    },
  };
}

type CallDeadline = ReturnType<typeof callDeadline>;

export function createChatClient(options: ChatClientOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;

  /**
   * POST the conversation. Redirects are followed by hand and only within the model server's
   * origin: following one elsewhere would hand the conversation and the API key to another host.
   */
  async function post(request: ToolChatRequest, stream: boolean, deadline: CallDeadline): Promise<Response> {
    const body = JSON.stringify({
      model: options.model,
      messages: request.messages,
      stream,
      // The exact usage in a last chunk (DESIGN §15); servers that do not know the option ignore it.
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map((tool) => ({ type: 'function', function: tool })) } : {}),
    });
    let target = new URL(url);
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await fetch(target, { method: 'POST', headers, signal: deadline.signal, body, redirect: 'manual' });
      } catch (error) {
        if (request.signal?.aborted) throw error;
        if (deadline.timedOut()) throw new ModelError(`the model did not answer within ${timeoutMs} ms`);
        throw new ModelError(`the model server at ${options.baseUrl} could not be reached: ${(error as Error).message}`);
      }
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      if (location === null) {
        if (!response.ok) {
          const text = await response.text().catch(() => '');
          const said = errorBodyMessage(text);
          throw new ModelError(`the model server answered ${response.status}${said ? `: ${said}` : ''}`, response.status);
        }
        return response;
      }
      await response.body?.cancel().catch(() => undefined);
      const next = new URL(location, target);
      if (next.origin !== target.origin) {
        throw new ModelError(`the model server redirected to another origin (${next.origin}): refused, so the conversation is not sent there`, response.status);
      }
      if (hop >= MAX_REDIRECTS) throw new ModelError(`the model server redirected more than ${MAX_REDIRECTS} times`, response.status);
      target = next;
    }
  }

  /** Runs one call under its deadline; the timer lives until the answer has been read to the end. */
  async function call<T>(request: ToolChatRequest, stream: boolean, read: (response: Response, deadline: CallDeadline) => Promise<T>): Promise<T> {
    const deadline = callDeadline(timeoutMs, request.signal);
    try {
      return await read(await post(request, stream, deadline), deadline);
    } finally {
      deadline.clear();
    }
  }

  return {
    model: options.model,
    complete(request) {
      return call(request, false, async (response, deadline) => {
        let body: { choices?: { message?: { content?: unknown } }[] };
        try {
          body = (await response.json()) as typeof body;
        } catch (error) {
          if (request.signal?.aborted) throw error;
          if (deadline.timedOut()) throw new ModelError(`the model did not finish its answer within ${timeoutMs} ms`);
          throw new ModelError(`the model answered with something that is not JSON: ${(error as Error).message}`);
        }
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== 'string') throw new ModelError('the model answered without a message');
        return content;
      });
    },
    async stream(request, onDelta) {
      return (await call(request, true, (response, deadline) => streamReply(response, onDelta, request.signal, deadline, timeoutMs))).text;
    },
    streamChat(request, onDelta) {
      return call(request, true, (response, deadline) => streamReply(response, onDelta, request.signal, deadline, timeoutMs));
    },
  };
}

interface StreamChunk {
  usage?: Record<string, unknown> | null;
  choices?: {
    delta?: { content?: unknown; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
}

/** Text deltas as they come; tool calls arrive in pieces keyed by `index` and are joined here. */
async function streamReply(
  response: Response,
  onDelta: (delta: string) => void,
  signal: AbortSignal | undefined,
  deadline: CallDeadline,
  timeoutMs: number,
): Promise<StreamedReply> {
  if (!response.body) throw new ModelError('the model answered without a body');
  const startedAt = deadline.startedAt;
  let firstByteAt: number | null = null;
  let usage: Record<string, unknown> | null = null;
  let text = '';
  let finishReason: string | null = null;
  const calls = new Map<number, ToolCall>();
  try {
    for await (const data of serverSentData(response.body)) {
      firstByteAt ??= performance.now();
      if (data === '[DONE]') break;
      let chunk: StreamChunk;
      try {
        chunk = JSON.parse(data) as StreamChunk;
      } catch {
        continue; // a keep-alive or a vendor extension
      }
      if (chunk.usage && typeof chunk.usage === 'object') usage = chunk.usage;
      const choice = chunk.choices?.[0];
      const delta = choice?.delta?.content;
      if (typeof delta === 'string' && delta !== '') {
        text += delta;
        onDelta(delta);
      }
      for (const piece of choice?.delta?.tool_calls ?? []) {
        const index = piece.index ?? 0;
        const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (piece.id) call.id = piece.id;
        if (piece.function?.name) call.name += piece.function.name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
        calls.set(index, call);
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    if (deadline.timedOut()) throw new ModelError(`the model did not finish its answer within ${timeoutMs} ms`);
    throw new ModelError(`the model's answer broke off: ${(error as Error).message}`);
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }))
    .filter((call) => call.name !== '');
  const ms = (at: number) => Math.max(0, Math.round(at - startedAt));
  return { text, toolCalls, finishReason, usage, ttfbMs: firstByteAt === null ? null : ms(firstByteAt), durationMs: ms(performance.now()) };
}

/** The `data:` payloads of a server-sent-event body. */
async function* serverSentData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
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

/** OPENPROGRAM_LLM_TIMEOUT_MS: how long one model call may take in all (default 120 s). */
export function timeoutFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): number | undefined {
  const value = Number(env['OPENPROGRAM_LLM_TIMEOUT_MS']);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
