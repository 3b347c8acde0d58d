import { fingerprints } from '../proxy/fingerprint.js';
import { parseRequest } from '../proxy/request.js';
import { anthropicMessages } from './claude-code-transcript.js';
import { responsesItems } from './codex-rollout.js';
import type { ResumeEntry } from './conversation.js';

export type ResumeAgent = 'claude' | 'codex';

/**
 * The chained fingerprint of each message of the written conversation, as the recording proxy
 * will read the resumed agent's requests (the same parser, on the same messages the agent
 * sends back), each paired with the node it stands for. A resumed request whose conversation
 * holds one of them continues from that node.
 */
export function resumeFingerprints(agent: ResumeAgent, entries: readonly ResumeEntry[]): [fingerprint: string, nodeId: string][] {
  const pairs: [string, string][] = [];
  for (const entry of entries) {
    // How many user/assistant steps the proxy reads out of this one message (an empty model message: none).
    const steps = stepsOf(agent, [entry]).filter((step) => step.role !== 'tool').length;
    for (let i = 0; i < steps; i++) pairs.push(['', entry.nodeId]);
  }
  const chain = fingerprints(stepsOf(agent, entries)).filter((fingerprint): fingerprint is string => fingerprint !== null);
  return pairs.slice(0, chain.length).map(([, nodeId], i) => [chain[i]!, nodeId]);
}

function stepsOf(agent: ResumeAgent, entries: readonly ResumeEntry[]) {
  return agent === 'claude' ? parseRequest('anthropic', { messages: anthropicMessages(entries) }).steps : parseRequest('responses', { input: responsesItems(entries) }).steps;
}
