import type { Message, SessionDetail } from '../../store/index.js';
import type { ExportSource } from '../source.js';

/**
 * A session of `count` messages made up as they are asked for, with no store below it: the
 * exports' memory can be measured without a 10,000-turn session on disk, and `pagesRead` /
 * `largestPage` say how much of the session was asked for at once.
 */
export function syntheticSource(count: number, contentOf: (seq: number) => string) {
  const stats = { pagesRead: 0, largestPage: 0, messagesRead: 0 };
  const message = (seq: number): Message => ({
    id: `m${seq}`,
    seq,
    role: seq % 2 === 0 ? 'user' : 'assistant',
    content: contentOf(seq),
    parentId: seq === 0 ? null : `m${seq - 1}`,
    calledBy: null,
    name: '',
    input: null,
    metadata: {},
    createdAt: 1_700_000_000_000 + seq,
  });
  const source = {
    async getSession(id: string) {
      return { id, title: 'Synthetic', headId: `m${count - 1}`, redacted: 0 } as unknown as SessionDetail;
    },
    async listBranches() {
      return [{ headId: `m${count - 1}`, name: 'main', createdAt: 0 }];
    },
    async listNodes(_id: string, options: { limit?: number; cursor?: string | null } = {}) {
      const limit = options.limit ?? 200;
      const from = options.cursor ? Number(options.cursor) : 0;
      const to = Math.min(count, from + limit);
      const messages: Message[] = [];
      for (let seq = from; seq < to; seq++) messages.push(message(seq));
      stats.pagesRead++;
      stats.largestPage = Math.max(stats.largestPage, messages.length);
      stats.messagesRead += messages.length;
      return { messages, nextCursor: to < count ? String(to) : null };
    },
  } as unknown as ExportSource;
  return { source, stats };
}
