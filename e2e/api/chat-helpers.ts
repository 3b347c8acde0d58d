import type { APIRequestContext } from '@playwright/test';
import { getSession, MODEL_URL, mutate, query, type BranchMessage, type SessionDetail } from '../fixtures';

/** Helpers of the chat specs: send, wait for the turn to end, read what the model server received. */
export interface Sent {
  sessionId: string;
  userMessageId: string;
}

export async function send(api: APIRequestContext, input: Record<string, unknown>): Promise<Sent> {
  const sent = await mutate<Sent>(api, 'chat.send', input);
  if (sent.status !== 200) throw new Error(`chat.send failed: ${JSON.stringify(sent.body)}`);
  return sent.data;
}

/** The session once its turn has ended (status no longer running). */
export async function turnEnded(api: APIRequestContext, sessionId: string, timeoutMs = 15_000): Promise<SessionDetail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const session = await getSession(api, sessionId);
    const state = await query<{ running: boolean }>(api, 'chat.state', { sessionId });
    if (session.status !== 'running' && !state.data.running) return session;
    if (Date.now() > until) throw new Error(`the turn of ${sessionId} did not end within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function branchOf(api: APIRequestContext, sessionId: string): Promise<BranchMessage[]> {
  return (await query<BranchMessage[]>(api, 'message.branch', { sessionId })).data;
}

export interface ModelRequest {
  body: { model?: string; stream?: boolean; messages?: { role: string; content: unknown }[]; tools?: unknown[] };
  durationMs: number | null;
}

/** What the loopback model server received, for requests whose messages mention `needle`. */
export async function modelRequests(needle: string): Promise<ModelRequest[]> {
  const response = await fetch(`${MODEL_URL.replace(/\/v1$/, '')}/requests`);
  const { requests } = (await response.json()) as { requests: ModelRequest[] };
  return requests.filter((request) => JSON.stringify(request.body.messages ?? []).includes(needle));
}

export const isTitleRequest = (request: ModelRequest) =>
  (request.body.messages ?? []).some((message) => message.role === 'system' && String(message.content).startsWith('Generate a short, descriptive title'));

export async function until<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
