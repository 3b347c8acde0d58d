import { describe, expect, it } from 'vitest';
import { parseRequest } from './request.js';
import { chooseSession, prefixedId, prefixSessionId, sourceOf } from './session-identity.js';

const headers = (values: Record<string, string>) => (name: string) => values[name] ?? null;
const empty = parseRequest('anthropic', { messages: [] });

describe('which session (DESIGN §12), first that applies', () => {
  it('x-entity-memory-session, then x-claude-code-session-id, then Codex session-id, then metadata.user_id', () => {
    const all = { 'x-entity-memory-session': 'mine', 'x-claude-code-session-id': 'c1', 'session-id': 'k1' };
    expect(chooseSession(headers(all), empty)).toMatchObject({ sessionId: 'mine', via: 'x-entity-memory-session' });
    expect(chooseSession(headers({ 'x-claude-code-session-id': '2f0e3c1a-aaaa' }), empty)).toEqual({ sessionId: 'cc-2f0e3c1a-aaaa', via: 'x-claude-code-session-id', agent: 'claude-code' });
    expect(chooseSession(headers({ 'session-id': '0199-abc' }), empty)).toEqual({ sessionId: 'codex-0199-abc', via: 'session-id', agent: 'codex' });
    expect(chooseSession(headers({ session_id: '0199-abc' }), empty).sessionId).toBe('codex-0199-abc');
    const withMetadata = parseRequest('anthropic', { metadata: { user_id: 'user_x_account__session_2f0e3c1a-1111-2222-3333-444455556666' } });
    expect(chooseSession(headers({}), withMetadata)).toMatchObject({ sessionId: 'cc-2f0e3c1a-1111-2222-3333-444455556666', via: 'metadata.user_id', agent: 'claude-code' });
    expect(chooseSession(headers({ 'user-agent': 'OpenAI/JS 6.0' }), empty)).toEqual({ sessionId: null, via: null, agent: null });
    expect(chooseSession(headers({ 'user-agent': 'codex_exec/0.169.0' }), empty).agent).toBe('codex');
  });

  it('an id that would pass 128 characters or holds other characters becomes <prefix>-h<40 hex>, never cut', () => {
    expect(prefixedId('cc', 'a'.repeat(125))).toBe(`cc-${'a'.repeat(125)}`);
    const long = prefixedId('cc', 'a'.repeat(126));
    expect(long).toMatch(/^cc-h[0-9a-f]{40}$/);
    expect(prefixedId('codex', 'has space/slash')).toMatch(/^codex-h[0-9a-f]{40}$/);
    expect(chooseSession(headers({ 'x-entity-memory-session': '../etc' }), empty).sessionId).toMatch(/^px-h[0-9a-f]{40}$/);
    expect(prefixSessionId('f'.repeat(64))).toBe(`px-${'f'.repeat(32)}`);
  });

  it('source: the agent, else the wire family', () => {
    expect(sourceOf('claude-code', 'anthropic')).toBe('proxy:claude-code');
    expect(sourceOf('codex', 'responses')).toBe('proxy:codex');
    expect(sourceOf(null, 'anthropic')).toBe('proxy:anthropic');
    expect(sourceOf(null, 'chat')).toBe('proxy:openai');
  });
});
