import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SEARCH_LIMIT_MAX, type SearchHit } from '@/lib/search/index';
import type { BranchMessage, SessionRow } from '@/lib/store/index';
import type { createCaller } from '@/server/api/root';
import { nodeIdInput, sessionIdInput } from '@/server/api/schemas';
import { registerOrganiseTools } from './organise-tools';

/** The API as the token's user: every tool goes through the procedures, their checks and error mapping. */
export type McpCaller = ReturnType<typeof createCaller>;

const scopeInput = z.enum(['active', 'archived', 'all']);
const READ_PAGE_MAX = 200;
/** a message's text beyond this is cut in read_session: a model's context is the scarce thing */
const READ_TEXT_MAX = 8_000;

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 1) }] };
}

/** A refusal the model can read and act on (an unknown id, a bad cursor), not a protocol error. */
function refusal(error: unknown): CallToolResult {
  // A procedure's TRPCError carries the code name the API answers with.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && ['NOT_FOUND', 'BAD_REQUEST'].includes(code)) {
    return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
  }
  throw error;
}

function snippetText(hit: SearchHit): string {
  return hit.snippet.map((segment) => (segment.match ? `«${segment.text}»` : segment.text)).join('');
}

function sessionSummary(row: SessionRow) {
  return { sessionId: row.id, title: row.title || row.preview || '(untitled)', archived: row.archived, updatedAt: new Date(row.updatedAt).toISOString(), preview: row.preview };
}

function clip(text: string): string {
  return text.length > READ_TEXT_MAX ? `${text.slice(0, READ_TEXT_MAX)}… [${text.length - READ_TEXT_MAX} more characters]` : text;
}

function messageSummary(message: BranchMessage) {
  return {
    id: message.id,
    role: message.role,
    createdAt: new Date(message.createdAt).toISOString(),
    content: clip(message.content),
    ...(message.toolCalls.length > 0
      ? { toolCalls: message.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.input, result: clip(call.content) })) }
      : {}),
  };
}

/**
 * The MCP tools of one user (DESIGN §10: agents search their own memory). Built per request with
 * the caller of the token's user: every tool calls the same procedures as the HTTP API, so it reads
 * that user's store and index only and passes the same checks (a moved user, a frozen one, a bad id).
 */
export function createMcpServer(api: McpCaller): McpServer {
  const server = new McpServer({ name: 'entity-memory', version: '0.1.0' });

  server.registerTool(
    'search_sessions',
    {
      title: 'Search past sessions',
      description:
        'Full-text search over every past conversation of this user: titles, messages, tool calls and results. Any language; words of two characters or more. Matches are marked «like this». Use read_session with a hit\'s sessionId and messageId to read around it.',
      inputSchema: {
        query: z.string().trim().min(1).max(500).describe('words to find, all of them (not a regular expression)'),
        scope: scopeInput.optional().describe('active, archived or all (default all)'),
        limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional().describe('hits per page (default 20)'),
        cursor: z.string().min(1).max(1024).optional().describe('nextCursor of the previous page'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ query, scope, limit, cursor }) => {
      try {
        const page = await api.session.search({ q: query, scope, limit, cursor });
        return json({
          hits: page.hits.map((hit) => ({
            sessionId: hit.sessionId,
            messageId: hit.messageId,
            kind: hit.kind,
            title: hit.title || hit.preview || '(untitled)',
            snippet: snippetText(hit),
            archived: hit.archived,
            updatedAt: new Date(hit.updatedAt).toISOString(),
          })),
          nextCursor: page.nextCursor,
          ...(page.status.state === 'catching_up' ? { note: `the index is catching up (${page.status.done}/${page.status.total} sessions): results may be incomplete` } : {}),
        });
      } catch (error) {
        return refusal(error);
      }
    },
  );

  server.registerTool(
    'list_sessions',
    {
      title: 'List sessions',
      description: 'The sessions of this user, most recently updated first, optionally filtered by a title or preview substring.',
      inputSchema: {
        scope: scopeInput.optional().describe('active (default), archived or all'),
        query: z.string().max(500).optional().describe('a substring of the title or preview'),
        limit: z.number().int().min(1).max(200).optional().describe('sessions per page (default 50)'),
        cursor: z.string().min(1).max(1024).optional().describe('nextCursor of the previous page'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ scope, query, limit, cursor }) => {
      try {
        const page = await api.session.list({ scope, q: query || undefined, limit, cursor });
        return json({ sessions: page.rows.map(sessionSummary), nextCursor: page.nextCursor });
      } catch (error) {
        return refusal(error);
      }
    },
  );

  server.registerTool(
    'read_session',
    {
      title: 'Read a session',
      description:
        'Messages of one branch of a session, oldest first, with their tool calls: the newest page of the current branch, the page around a message (messageId, from a search hit), or the page before a message (before = the oldest id shown, while olderBefore is not null).',
      inputSchema: {
        sessionId: sessionIdInput,
        messageId: nodeIdInput.optional().describe('read around this message, on the branch it is on'),
        before: nodeIdInput.optional().describe('read the messages before this one'),
        headId: nodeIdInput.optional().describe('the branch tip to read (default the current branch)'),
        limit: z.number().int().min(1).max(READ_PAGE_MAX).optional().describe('messages per page (default 30)'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ sessionId, messageId, before, headId, limit = 30 }) => {
      try {
        const session = await api.session.get({ id: sessionId });
        let messages: BranchMessage[];
        let tip = headId ?? null;
        if (messageId && !before) {
          const around = await api.message.around({ sessionId, messageId, limit });
          messages = around.messages;
          tip = around.headId;
        } else messages = await api.message.branch({ sessionId, headId, before, limit });
        const oldest = messages[0];
        return json({
          session: sessionSummary(session),
          headId: tip ?? session.headId,
          messages: messages.map(messageSummary),
          olderBefore: oldest?.parentId ? oldest.id : null,
        });
      } catch (error) {
        return refusal(error);
      }
    },
  );

  registerOrganiseTools(server, api, { json, refusal });
  return server;
}
