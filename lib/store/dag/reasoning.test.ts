import { describe, expect, it } from 'vitest';
import { reasoningOf } from './reasoning.js';

describe('reasoningOf: one shape for every way in', () => {
  it('reads chat and Codex/ChatGPT imports (reasoning), Claude Code imports (thinking, a string) and the proxy (thinking blocks)', () => {
    expect(reasoningOf({ reasoning: 'chat thought' })).toBe('chat thought');
    expect(reasoningOf({ thinking: 'imported thought' })).toBe('imported thought');
    expect(reasoningOf({ thinking: [{ text: 'first', signature: 'sig' }, { text: 'second' }] })).toBe('first\n\nsecond');
    expect(reasoningOf({ reasoning: 'a', thinking: ['b'] })).toBe('a\n\nb');
  });

  it('is null when there is none, or only blanks and other shapes', () => {
    expect(reasoningOf({})).toBeNull();
    expect(reasoningOf({ reasoning: '  ', thinking: [{ signature: 'only' }, 3, null] })).toBeNull();
  });
});
