import { rename, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { IndexStatus, SearchHit } from '../../lib/search/index.js';
import type { ListScope, SessionRow } from '../../lib/store/index.js';
import type { ExportFormat, ShownSession } from '../backend.js';
import { iso, one, table, usageError, type CommandSpec, type Output } from '../command-spec.js';

/** Sessions: list, show, search, archive, rename, export, delete; and the search index's rebuild. */

const SCOPES: readonly ListScope[] = ['active', 'archived', 'all'];

function sessionCells(row: SessionRow): string[] {
  const flags = [row.pinned ? 'pinned' : '', row.archived ? 'archived' : '', row.unread ? 'unread' : ''].filter(Boolean).join(',');
  return [row.id, iso(row.updatedAt), row.status, row.project, flags || '-', row.title || row.preview || '(untitled)'];
}

function printSession(shown: ShownSession, output: Output): void {
  const { session, messages } = shown;
  const fields: Array<[string, string]> = [
    ['Title', session.title || session.preview || '(untitled)'],
    ['ID', session.id],
    ['Project', session.project],
    ['Status', session.status],
    // The agent named once and how it came in, as the app shows it; source and agent id as stored.
    ['Agent', [session.agentName, session.wayIn].filter((part) => part !== null).join(' · ')],
    ['Source', session.agentId ? `${session.source} (${session.agentId})` : session.source],
    ['Created', iso(session.createdAt)],
    ['Updated', iso(session.updatedAt)],
    ['Turns', String(session.turnCount)],
    ['Flags', [session.pinned ? 'pinned' : '', session.archived ? 'archived' : '', session.unread ? 'unread' : ''].filter(Boolean).join(', ') || '-'],
  ];
  for (const [name, value] of fields) output.out(`${`${name}:`.padEnd(9)} ${value}`);
  output.out('');
  output.out(messages.length === 1 ? '1 message on the current branch' : `${messages.length} messages on the current branch`);
  for (const message of messages) {
    output.out('');
    output.out(`[${message.role}${message.name ? ` ${message.name}` : ''}] ${iso(message.createdAt)}  ${message.id}`);
    output.out(message.content === '' ? '(empty)' : message.content);
    for (const call of message.toolCalls) output.out(`  -> ${call.name}: ${call.content.split('\n')[0]?.slice(0, 200) ?? ''}`);
  }
}

/** A hit on one line: ids, the session's name, the snippet with the matched text in «». */
function formatHit(hit: SearchHit): string {
  const snippet = hit.snippet.map((segment) => (segment.match ? `«${segment.text}»` : segment.text)).join('');
  const name = hit.title || hit.preview || '(untitled)';
  return [hit.sessionId, hit.messageId ?? '-', hit.kind, hit.archived ? 'archived' : '-', name, snippet].join('\t');
}

/** Progress of a rebuild: a bar on a terminal, else a line per tenth. */
function progressReporter(output: Output, label: string): { update: (status: IndexStatus) => void; stop: () => void } {
  const stream = output.progressStream;
  if (stream?.isTTY) {
    const bar = new SingleBar({ stream, format: `${label} [{bar}] {percentage}% | {value}/{total} sessions | {eta_formatted} left`, hideCursor: true });
    let started = false;
    return {
      update(status) {
        if (!started) {
          bar.start(status.total, status.done);
          started = true;
        } else bar.update(status.done, { total: status.total });
        bar.setTotal(status.total);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = -1;
  return {
    update(status) {
      const tenth = status.total === 0 ? 10 : Math.floor((status.done / status.total) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        output.err(`${label}: ${status.done}/${status.total} sessions`);
      }
    },
    stop: () => undefined,
  };
}

const EXPORT_FORMATS: readonly ExportFormat[] = ['md', 'json', 'bundle', 'agent-trace'];
const EXTENSION: Record<ExportFormat, string> = { md: 'md', json: 'json', bundle: 'bundle', 'agent-trace': 'agent-trace.jsonl' };

/**
 * Stream an export into `file`: written beside it first and renamed when complete, so a failed
 * export never leaves a file that looks whole. Returns the bytes written.
 */
async function writeExport(chunks: AsyncIterable<string | Uint8Array>, file: string): Promise<number> {
  const partial = `${file}.part`;
  let bytes = 0;
  const counted = Readable.from(chunks).on('data', (chunk: Buffer | string) => (bytes += Buffer.byteLength(chunk)));
  try {
    await pipeline(counted, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return bytes;
}

export const SESSION_COMMANDS: Record<string, CommandSpec> = {
  'sessions list': {
    usage: 'sessions list [--scope active|archived|all] [--limit N] [-q TEXT]',
    summary: 'list sessions, newest first',
    async run(backend, args, values, output) {
      if (args.length > 0) throw usageError('sessions list takes no arguments', this);
      const scope = (values.scope ?? 'active') as ListScope;
      if (!SCOPES.includes(scope)) throw usageError(`--scope must be one of ${SCOPES.join(', ')}`, this);
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit must be a positive integer', this);
      const rows = await backend.listSessions({ scope, limit, q: values.q });
      if (values.json) output.out(JSON.stringify(rows));
      else table(output, ['ID', 'UPDATED', 'STATUS', 'PROJECT', 'FLAGS', 'TITLE'], rows.map(sessionCells));
    },
  },
  'sessions show': {
    usage: 'sessions show <id>',
    summary: 'a session and the messages of its current branch',
    async run(backend, args, values, output) {
      const shown = await backend.showSession(one(args, 'session id', this));
      if (values.json) output.out(JSON.stringify(shown));
      else printSession(shown, output);
    },
  },
  'sessions search': {
    usage: 'sessions search <text> [--scope active|archived|all] [--limit N]',
    summary: 'full-text search of every message',
    async run(backend, args, values, output) {
      if (args.length === 0) throw usageError('sessions search needs the text to find', this);
      const q = args.join(' ');
      const scope = (values.scope ?? 'all') as ListScope;
      if (!SCOPES.includes(scope)) throw usageError(`--scope must be one of ${SCOPES.join(', ')}`, this);
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usageError('--limit must be a positive integer', this);
      const progress = progressReporter(output, 'Catching up the search index');
      const { hits, status } = await backend.search({ q, scope, limit }, progress.update).finally(progress.stop);
      if (values.json) output.out(JSON.stringify({ hits, status }));
      else {
        if (status.state === 'catching_up') output.err(`The search index is catching up (${status.done}/${status.total} sessions): results may be incomplete.`);
        if (hits.length === 0) output.err(`No message matches ${JSON.stringify(q)}.`);
        for (const hit of hits) output.out(formatHit(hit));
      }
    },
  },
  'search reindex': {
    usage: 'search reindex',
    summary: 'rebuild the full-text index, with progress',
    async run(backend, args, _values, output) {
      if (args.length > 0) throw usageError('search reindex takes no arguments', this);
      const progress = progressReporter(output, 'Rebuilding the search index');
      const started = Date.now();
      const status = await backend.reindex(progress.update).finally(progress.stop);
      output.out(`Search index rebuilt: ${status.total} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  },
  'sessions archive': {
    usage: 'sessions archive <id>',
    summary: 'archive a session (also: archive <id>)',
    async run(backend, args, _values, output) {
      const row = await backend.setArchived(one(args, 'session id', this), true);
      output.out(`Archived session ${row.id}`);
    },
  },
  'sessions unarchive': {
    usage: 'sessions unarchive <id>',
    summary: 'unarchive a session (also: unarchive <id>)',
    async run(backend, args, _values, output) {
      const row = await backend.setArchived(one(args, 'session id', this), false);
      output.out(`Unarchived session ${row.id}`);
    },
  },
  'sessions rename': {
    usage: 'sessions rename <id> <title>',
    summary: 'give a session a title',
    async run(backend, args, _values, output) {
      if (args.length < 2) throw usageError('sessions rename needs an id and a title', this);
      const [id, ...words] = args;
      const row = await backend.rename(id!, words.join(' '));
      output.out(`Renamed session ${row.id} to ${row.title}`);
    },
  },
  'sessions export': {
    usage: 'sessions export <id> [--format md|json|bundle|agent-trace] [-o FILE] [--no-tools] [--reasoning]',
    summary: 'Markdown (the current branch), JSON (lossless, the default), the session repo as a git bundle, or its attribution as Agent Trace records (JSON Lines)',
    async run(backend, args, values, output) {
      const sessionId = one(args, 'session id', this);
      const format = (values.format ?? 'json') as ExportFormat;
      if (!EXPORT_FORMATS.includes(format)) throw usageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`, this);
      const file = resolve(values.output ?? `${sessionId}.${EXTENSION[format]}`);
      const chunks = await backend.exportSession({ sessionId, format, toolCalls: values['no-tools'] !== true, reasoning: values.reasoning === true });
      const bytes = await writeExport(chunks, file);
      output.out(values.json ? JSON.stringify({ sessionId, format, file, bytes }) : `Exported session ${sessionId} (${format}) to ${file}: ${bytes} bytes`);
    },
  },
  'export all': {
    usage: 'export --all <out.zip>',
    summary: 'every session as one zip of JSON files',
    async run(backend, args, values, output) {
      if (values.all !== true) throw usageError('export needs --all (one session: sessions export <id>)', this);
      const file = resolve(one(args, 'zip file name', this));
      const bytes = await writeExport(await backend.exportAll(), file);
      output.out(values.json ? JSON.stringify({ file, bytes }) : `Exported every session to ${file}: ${bytes} bytes`);
    },
  },
  'sessions delete': {
    usage: 'sessions delete <id>',
    summary: 'delete a session and its history',
    async run(backend, args, _values, output) {
      const id = one(args, 'session id', this);
      await backend.deleteSession(id);
      output.out(`Deleted session ${id}`);
    },
  },
};
