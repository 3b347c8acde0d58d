import { describe, expect, it } from 'vitest';
import { agentWorkingDirectory, whereaboutsOf } from './project-of';
import { parseRequest } from './request';

const CLAUDE_SYSTEM = [
  'You are Claude Code, an interactive CLI tool.',
  'Here is useful information about the environment you are running in:',
  '<env>',
  ' - Primary working directory: /home/ana/app',
  ' - Is a git repository: true',
  '</env>',
].join('\n');

describe('project-of: where an agent worked, from its request', () => {
  it("reads Claude Code's primary working directory from its system prompt", () => {
    const parsed = parseRequest('anthropic', { model: 'm', system: [{ type: 'text', text: CLAUDE_SYSTEM }], messages: [{ role: 'user', content: 'hi' }] });
    expect(agentWorkingDirectory(parsed)).toBe('/home/ana/app');
    expect(agentWorkingDirectory({ system: 'Working directory: /srv/old', steps: [] })).toBe('/srv/old');
  });

  it("reads Codex's cwd from the environment context of its user message, the newest one winning", () => {
    const context = (cwd: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>` }] });
    const parsed = parseRequest('responses', {
      model: 'm',
      input: [context('/w/first'), { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] }, context('/w/second'), { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'again' }] }],
    });
    expect(agentWorkingDirectory(parsed)).toBe('/w/second');
  });

  it('a relative or missing folder is none; the header is taken as sent, trimmed', () => {
    expect(agentWorkingDirectory({ system: 'Primary working directory: app', steps: [] })).toBeNull();
    expect(agentWorkingDirectory({ system: null, steps: [{ role: 'user', text: 'my cwd is /etc', media: [], reminders: [] }] })).toBeNull();
    expect(whereaboutsOf(' app-1a2b3c ', { system: CLAUDE_SYSTEM, steps: [] })).toEqual({ header: 'app-1a2b3c', cwd: '/home/ana/app' });
    expect(whereaboutsOf(undefined, null)).toEqual({ header: null, cwd: null });
    expect(whereaboutsOf(['/a', '/b'], null)).toEqual({ header: '/a', cwd: null });
  });
});
