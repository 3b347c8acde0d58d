import { describe, expect, it } from 'vitest';
import { agentCommitMessage, agentName, messageLabel, parseAgentTrailers } from './commit-message.js';

describe('agent commit message', () => {
  it('has the subject, a blank line and both trailers', () => {
    expect(agentCommitMessage('s1', 4, '  Refactor the thing  \nmore')).toBe(
      '[agent s1] turn 4: Refactor the thing\n\nOpenProgram-Session: s1\nOpenProgram-Turn: 4\n',
    );
    expect(agentCommitMessage('s1', 1, '')).toBe('[agent s1] turn 1\n\nOpenProgram-Session: s1\nOpenProgram-Turn: 1\n');
  });

  it('counts code points, not UTF-16 units', () => {
    expect(Array.from(messageLabel('𝒜'.repeat(70)))).toHaveLength(60);
    expect(messageLabel('x'.repeat(61))).toBe('x'.repeat(60));
  });

  it('names the agent after its model and drops characters git refuses', () => {
    expect(agentName('gpt-4o')).toBe('agent (gpt-4o via Entity Memory)');
    expect(agentName('<evil>\nname')).toBe('agent (evilname via Entity Memory)');
    expect(agentName('')).toBe('agent (via Entity Memory)');
  });

  it('reads the trailers back', () => {
    expect(parseAgentTrailers('OpenProgram-Session: abc\nOpenProgram-Turn: 12\n')).toEqual({ sessionId: 'abc', turn: 12 });
    expect(parseAgentTrailers('Signed-off-by: x')).toEqual({ sessionId: null, turn: null });
  });
});
