import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { InvalidInputError } from '../errors.js';
import { recordNode } from '../dag/record-nodes.js';
import { codePointLength, sliceCodePoints } from '../text.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';
import { writeNode } from '../session/append-node.js';

/**
 * A chat's own settings (ours): the model picked for it and its system prompt, in the session's
 * `context/chat.json`, so the next turn commit holds them beside the context each reply was
 * made from. A change appends a `chat/settings` record node: the timeline lists it in the turn
 * it takes effect in, and the history keeps every earlier value.
 */
export interface ChatSettings {
  /** a model id the server offers; null: the configured default */
  model: string | null;
  /** added after the built-in system prompt; null: none */
  systemPrompt: string | null;
}

export const MAX_SYSTEM_PROMPT_CHARS = 20_000;
const MAX_MODEL_CHARS = 200;
const FILE = ['context', 'chat.json'] as const;
const EMPTY: ChatSettings = { model: null, systemPrompt: null };

function clean(value: unknown, what: string, max: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new InvalidInputError(`${what} must be a string`);
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (codePointLength(trimmed) > max) throw new InvalidInputError(`${what} must be at most ${max} characters`);
  return trimmed;
}

/** What a chat's settings file says; a missing or unreadable one is the defaults. */
export function parseChatSettings(text: string | null): ChatSettings {
  if (text === null) return { ...EMPTY };
  try {
    const raw = JSON.parse(text) as Record<string, unknown>;
    const model = typeof raw['model'] === 'string' && raw['model'].trim() !== '' ? raw['model'].trim() : null;
    const prompt = typeof raw['system_prompt'] === 'string' && raw['system_prompt'].trim() !== '' ? raw['system_prompt'] : null;
    return { model, systemPrompt: prompt };
  } catch {
    return { ...EMPTY };
  }
}

/** The record node's sentence: what the chat runs on from now on. */
export function describeChatSettings(settings: ChatSettings): string {
  const model = `Model: ${settings.model ?? 'the default'}`;
  const prompt = settings.systemPrompt === null ? 'no system prompt' : `system prompt: "${sliceCodePoints(settings.systemPrompt.replace(/\s+/g, ' '), 120)}"`;
  return `${model}; ${prompt}`;
}

function readFrom(dir: string): ChatSettings {
  let text: string | null;
  try {
    text = readFileSync(join(dir, ...FILE), 'utf8');
  } catch {
    text = null;
  }
  return parseChatSettings(text);
}

export function getChatSettings(ctx: StoreContext, sessionId: string): Promise<ChatSettings> {
  return withSession(ctx, sessionId, (session) => readFrom(session.dir));
}

/** Fields given replace the stored ones (null or "" clears one); nothing changed, nothing written. */
export function setChatSettings(ctx: StoreContext, sessionId: string, patch: { model?: string | null; systemPrompt?: string | null }): Promise<ChatSettings> {
  const model = patch.model === undefined ? undefined : clean(patch.model, 'model', MAX_MODEL_CHARS);
  const systemPrompt = patch.systemPrompt === undefined ? undefined : clean(patch.systemPrompt, 'systemPrompt', MAX_SYSTEM_PROMPT_CHARS);
  if (model !== undefined && model !== null && /[\u0000-\u001f\u007f]/.test(model)) throw new InvalidInputError('model must not contain control characters');
  return withSession(ctx, sessionId, (session) => {
    const current = readFrom(session.dir);
    const given: ChatSettings = { model: model === undefined ? current.model : model, systemPrompt: systemPrompt === undefined ? current.systemPrompt : systemPrompt };
    // The settings file and its record node hold them: secrets out first (issue 27 item 7), compared as stored.
    const next = ctx.redactor ? (ctx.redactor({ content: given }).message.content as ChatSettings) : given;
    if (next.model === current.model && next.systemPrompt === current.systemPrompt) return current;
    atomicWriteFileSync(join(session.dir, ...FILE), `${JSON.stringify({ model: next.model, system_prompt: next.systemPrompt }, null, 2)}\n`);
    writeNode(
      ctx,
      session,
      recordNode(
        { idPrefix: 'chatset', name: 'chat/settings', output: describeChatSettings(next), metadata: { model: next.model, system_prompt: next.systemPrompt } },
        session.graph.lastSeq + 1,
        ctx.now(),
      ),
    );
    return next;
  });
}
