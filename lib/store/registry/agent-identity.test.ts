import { describe, expect, it } from 'vitest';
import { agentIdentity } from './agent-identity.js';

describe('one name per agent, the way in beside it', () => {
  it.each([
    // [agentId, source, name, way in]: what each way in writes today
    ['claude-code', 'proxy:claude-code', 'Claude Code', 'recorded'],
    ['codex', 'proxy:codex', 'Codex', 'recorded'],
    ['anthropic', 'proxy:anthropic', 'Anthropic SDK', 'recorded'],
    ['openai', 'proxy:openai', 'OpenAI SDK', 'recorded'],
    ['main', 'claude-code', 'Claude Code', 'imported'],
    ['main', 'codex', 'Codex', 'imported'],
    ['main', 'chatgpt', 'ChatGPT', 'imported'],
    ['main', 'openprogram', 'OpenProgram', 'imported'],
    ['claude-code', 'api', 'Claude Code', 'API'],
    ['main', 'curl', 'curl', 'API'],
    ['my-bot', '', 'my-bot', 'API'],
    ['main', '', null, 'API'],
    ['main', 'web', null, 'web chat'],
  ] as const)('%s from %s: %s, %s', (agentId, source, name, wayIn) => {
    expect(agentIdentity(agentId, source)).toMatchObject({ name, wayIn });
  });

  it('groups by the name, so an agent is one filter entry whichever way it came in', () => {
    const groups = new Set([agentIdentity('claude-code', 'proxy:claude-code'), agentIdentity('main', 'claude-code'), agentIdentity('claude-code', 'api')].map((each) => each.group));
    expect([...groups]).toEqual(['Claude Code']);
    expect(agentIdentity('main', 'web').group).toBe('You, in the web chat');
    expect(agentIdentity('main', '').group).toBe('Unnamed agent');
  });

  it('is never "main via …": the default agent id names nobody', () => {
    for (const source of ['claude-code', 'codex', 'chatgpt', 'curl']) expect(agentIdentity('main', source).name).not.toMatch(/main/);
  });
});
