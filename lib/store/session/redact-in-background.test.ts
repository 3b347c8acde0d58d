import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rewriteTextFile } from '../../fs/text-file.js';
import type { RedactableParts, Redactor } from '../types.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import { BACKGROUND_REDACT_CHARS } from './redact-parts.js';

// Issue 27 item 1: a large text is redacted in the redactor's background (the server's worker
// thread), never on the request thread, and each text passes the redactor once. The redactor
// here writes down which way every text came: `inline` (called on the store's thread) or
// `background` (inBackground / bytesInBackground), so the test reads the route, not a clock.

const LARGE = BACKGROUND_REDACT_CHARS + 1024;
const SECRET = 'SECRET-42';
const large = (label: string) => `${label} ${SECRET} ${'x'.repeat(LARGE)}`;

function stringsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) stringsOf(item, out);
  return out;
}

function recordingRedactor() {
  const seen: { route: 'inline' | 'background'; text: string }[] = [];
  // A stand-in rule (the real ones live in lib/redact, above the store): every "SECRET-<n>" goes.
  const rule = (text: string) => {
    let count = 0;
    return { text: text.replace(/SECRET-\d+/g, () => (count++, '[REDACTED:test]')), count };
  };
  const redactValue = (value: unknown): { value: unknown; count: number } => {
    if (typeof value === 'string') {
      const { text, count } = rule(value);
      return { value: text, count };
    }
    if (value === null || typeof value !== 'object') return { value, count: 0 };
    let count = 0;
    const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
    for (const [key, inner] of Object.entries(value)) {
      const done = redactValue(inner);
      count += done.count;
      (out as Record<string, unknown>)[key] = done.value;
    }
    return { value: out, count };
  };
  const redact = <M extends RedactableParts>(message: M, route: 'inline' | 'background') => {
    for (const text of stringsOf([message.content, message.input, message.metadata])) seen.push({ route, text });
    const { value, count } = redactValue({ content: message.content, input: message.input, metadata: message.metadata });
    const parts = value as RedactableParts;
    return { message: { ...message, content: parts.content, ...(message.input !== undefined ? { input: parts.input } : {}), ...(message.metadata !== undefined ? { metadata: parts.metadata } : {}) }, count };
  };
  const redactor: Redactor = Object.assign(<M extends RedactableParts>(message: M) => redact(message, 'inline'), {
    inBackground: async <M extends RedactableParts>(messages: M[]) => messages.map((message) => redact(message, 'background')),
    bytesInBackground: async (bytes: Uint8Array) =>
      rewriteTextFile(Buffer.from(bytes), (value) => {
        for (const text of stringsOf(value)) seen.push({ route: 'background', text });
        return redactValue(value);
      }),
  });
  /** Which ways the texts holding `marker` (of at least `minLength`: a title cut from one is a text of its own) passed the redactor. */
  const routesOf = (marker: string, minLength = BACKGROUND_REDACT_CHARS) => seen.filter(({ text }) => text.length >= minLength && text.includes(marker)).map(({ route }) => route);
  const largestInline = () => Math.max(0, ...seen.filter(({ route }) => route === 'inline').map(({ text }) => text.length));
  return { redactor, routesOf, largestInline };
}

describe('large texts are redacted in the background, each once (issue 27 item 1)', () => {
  const open = tempStoresPerTest();

  it('an appended message over the threshold goes to the background; a small one stays inline', async () => {
    const { redactor, routesOf, largestInline } = recordingRedactor();
    const { store } = await open({ redactor });
    await store.createSession({ id: 's' });
    const big = await store.appendMessage('s', { role: 'user', content: large('appended') });
    const small = await store.appendMessage('s', { role: 'assistant', content: `small ${SECRET}` });
    expect(routesOf('appended')).toEqual(['background']);
    expect(new Set(routesOf('small', 0))).toEqual(new Set(['inline']));
    expect(largestInline()).toBeLessThan(BACKGROUND_REDACT_CHARS);
    expect(big.content.startsWith('appended [REDACTED:test] x')).toBe(true);
    expect(small.content).toBe('small [REDACTED:test]');
    expect((await store.getSession('s')).redacted).toBe(2);
  });

  it('an uploaded text file over the threshold goes to the background, and is stored redacted', async () => {
    const { redactor, routesOf, largestInline } = recordingRedactor();
    const { store } = await open({ redactor });
    await store.createSession({ id: 's' });
    const saved = await store.saveAttachment('s', { name: 'notes.txt', data: Buffer.from(large('uploaded')), mime: 'text/plain' });
    expect(routesOf('uploaded')).toEqual(['background']);
    expect(largestInline()).toBeLessThan(BACKGROUND_REDACT_CHARS);
    const stored = readFileSync((await store.resolveAttachment('s', saved.name)).path, 'utf8');
    expect(stored.startsWith('uploaded [REDACTED:test] x')).toBe(true);
    expect(stored).not.toContain(SECRET);
    expect((await store.getSession('s')).redacted).toBe(1);
  });

  it('a recorded exchange redacts a large step once: not again when the next request repeats it', async () => {
    const { redactor, routesOf, largestInline } = recordingRedactor();
    const { store } = await open({ redactor });
    const options = { source: 'proxy', agentId: 'anthropic' };
    const first = { role: 'user' as const, fingerprint: 'f1', content: large('first request') };
    const reply = { role: 'assistant' as const, fingerprint: 'f2', content: `noted ${SECRET}` };
    await store.recordExchange({ sessionId: 'rec', steps: [first], reply }, options);
    // The agent's next request carries the whole conversation again, the large step included.
    const next = { role: 'user' as const, fingerprint: 'f3', content: large('second request') };
    await store.recordExchange({ sessionId: 'rec', steps: [first, reply, next], reply: { role: 'assistant', fingerprint: 'f4', content: 'done' } }, options);
    expect(routesOf('first request')).toEqual(['background']);
    expect(routesOf('second request')).toEqual(['background']);
    expect(largestInline()).toBeLessThan(BACKGROUND_REDACT_CHARS);
    const branch = await store.getBranch('rec');
    expect(branch.map((message) => message.content.slice(0, 30))).toEqual(['first request [REDACTED:test] ', 'noted [REDACTED:test]', 'second request [REDACTED:test]', 'done']);
    expect((await store.getSession('rec')).redacted).toBe(3);
  });
});
