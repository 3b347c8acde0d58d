import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SESSION_STATES } from '@/lib/store/index';
import { nodeIdInput, sessionIdInput, tagListInput } from '@/server/api/schemas';
import type { McpCaller } from './tools';

/**
 * The tools an agent files its own work with (DESIGN §16): through the caller's procedures, so
 * another user's session is refused exactly as a missing one, and every change is the same event
 * a person's edit is (live in their open tabs).
 */
export function registerOrganiseTools(
  server: McpServer,
  api: McpCaller,
  answer: { json: (value: unknown) => CallToolResult; refusal: (error: unknown) => CallToolResult },
): void {
  server.registerTool(
    'tag_session',
    {
      title: 'Tag a session',
      description: 'Add tags to (and take tags off) one of this user\'s sessions. Tags are lower case, without spaces, at most 40 characters.',
      inputSchema: {
        sessionId: sessionIdInput,
        add: tagListInput.optional().describe('tags to add'),
        remove: tagListInput.optional().describe('tags to take off'),
      },
    },
    async ({ sessionId, add = [], remove = [] }) => {
      try {
        const row = await api.tag.edit({ id: sessionId, add, remove });
        return answer.json({ sessionId: row.id, tags: row.tags });
      } catch (error) {
        return answer.refusal(error);
      }
    },
  );

  server.registerTool(
    'set_state',
    {
      title: 'Set a session\'s state',
      description: 'Where a session stands: active, review ("needs review", e.g. when your work is done and a person should look), done, or none.',
      inputSchema: {
        sessionId: sessionIdInput,
        state: z.enum([...SESSION_STATES, 'none']).describe('active, review, done, or none to clear it'),
      },
    },
    async ({ sessionId, state }) => {
      try {
        const row = await api.session.update({ id: sessionId, state: state === 'none' ? null : state });
        return answer.json({ sessionId: row.id, state: row.state });
      } catch (error) {
        return answer.refusal(error);
      }
    },
  );

  server.registerTool(
    'add_note',
    {
      title: 'Add a note',
      description: 'A Markdown note on one of this user\'s sessions, or on one message of it (messageId, e.g. from read_session): why it matters, what is left. Replaces the note there.',
      inputSchema: {
        sessionId: sessionIdInput,
        messageId: nodeIdInput.optional().describe('the message to note; without it the note is on the session'),
        text: z.string().min(1).max(64 * 1024).describe('Markdown'),
      },
    },
    async ({ sessionId, messageId, text }) => {
      try {
        const note = await api.note.set({ id: sessionId, messageId, text });
        return answer.json({ sessionId, messageId: note?.messageId ?? null, commit: note?.commit ?? null });
      } catch (error) {
        return answer.refusal(error);
      }
    },
  );
}
