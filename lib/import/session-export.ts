import type { ImportNode, ImportSessionInput } from '../store/index.js';
import { isRecord } from './lines.js';
import { NotThisFormatError, type SkippedLine } from './types.js';

/**
 * Our own lossless export back in (lib/export/session-json.ts, `entity-memory.session/1`): the
 * session keeps its id, every node its id, time, edges, tool call, input and metadata, every
 * branch its name. The export has no commits: turns are cut where a user message or a fork
 * starts one; each is a commit dated by its last node, as for every import. Importing it again, here or
 * into another user's store, adds nothing: the ids are the same.
 */

export const SESSION_EXPORT_SCHEMA = 'entity-memory.session/1';
const SCHEMA_FAMILY = 'entity-memory.session/';
/** Past this a document cannot be one JavaScript string; a session that large is refused, not cut. */
export const MAX_SESSION_EXPORT_BYTES = 256 * 1024 * 1024;
const ROLES = new Set(['user', 'assistant', 'tool', 'system']);

export interface ParsedSessionExport {
  session: ImportSessionInput;
  skipped: SkippedLine[];
}

/** Whether the start of a document is one of ours: its schema field comes first. */
export function looksLikeSessionExport(head: string): boolean {
  return /^\s*\{\s*"schema"\s*:\s*"entity-memory\.session\//.test(head);
}

async function textOf(chunks: AsyncIterable<Uint8Array>, file: string): Promise<string> {
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > MAX_SESSION_EXPORT_BYTES) throw new NotThisFormatError(`${file} is larger than ${MAX_SESSION_EXPORT_BYTES / 1024 / 1024} MB, more than one session export can be`);
    parts.push(chunk);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(parts));
}

type NodeCheck = { node: ImportNode; seq: number } | { error: string };

function nodeOf(value: unknown): NodeCheck {
  if (!isRecord(value)) return { error: 'not a JSON object' };
  const { id, role, content, parentId, calledBy, name, input, metadata, createdAt, seq } = value;
  if (typeof id !== 'string' || id === '') return { error: 'no id' };
  if (typeof role !== 'string' || !ROLES.has(role)) return { error: `role ${JSON.stringify(role)} is none of user, assistant, tool, system` };
  if (typeof content !== 'string') return { error: 'content is not text' };
  if (parentId !== null && typeof parentId !== 'string') return { error: 'parentId is neither null nor an id' };
  if (calledBy !== undefined && calledBy !== null && typeof calledBy !== 'string') return { error: 'calledBy is neither null nor an id' };
  if (name !== undefined && typeof name !== 'string') return { error: 'name is not text' };
  if (metadata !== undefined && !isRecord(metadata)) return { error: 'metadata is not an object' };
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt)) return { error: 'createdAt is not a time' };
  const node: ImportNode = {
    id,
    role: role as ImportNode['role'],
    content,
    parentId: role === 'tool' ? null : (parentId as string | null),
    createdAt: createdAt / 1000,
    name: (name as string | undefined) ?? '',
    input: input ?? null,
    metadata: (metadata as Record<string, unknown> | undefined) ?? {},
  };
  if (role === 'tool') node.calledBy = (calledBy as string | null | undefined) ?? null;
  return { node, seq: typeof seq === 'number' && Number.isFinite(seq) ? seq : Number.MAX_SAFE_INTEGER };
}

/**
 * One session export, read whole (one session's worth of memory, as every importer holds one
 * session): a document that is not ours is refused whole; a node of the wrong shape is skipped
 * and reported with its 1-based position, and so is every node below it.
 */
export async function parseSessionExport(chunks: AsyncIterable<Uint8Array>, options: { file: string }): Promise<ParsedSessionExport> {
  const { file } = options;
  const text = await textOf(chunks, file);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new NotThisFormatError(`not a session export: not JSON (${(error as Error).message})`);
  }
  if (!isRecord(document) || typeof document['schema'] !== 'string' || !document['schema'].startsWith(SCHEMA_FAMILY)) {
    throw new NotThisFormatError(`not a session export: no "schema": "${SESSION_EXPORT_SCHEMA}" field`);
  }
  if (document['schema'] !== SESSION_EXPORT_SCHEMA) throw new NotThisFormatError(`schema ${document['schema']} is not one this version reads (${SESSION_EXPORT_SCHEMA})`);
  const session = document['session'];
  if (!isRecord(session) || typeof session['id'] !== 'string') throw new NotThisFormatError('not a session export: "session" has no id');
  if (!Array.isArray(document['nodes'])) throw new NotThisFormatError('not a session export: "nodes" is not a list');

  const skipped: SkippedLine[] = [];
  const checked: { node: ImportNode; seq: number; index: number }[] = [];
  document['nodes'].forEach((value, at) => {
    const result = nodeOf(value);
    if ('error' in result) skipped.push({ file, line: at + 1, reason: `node ${at + 1}: ${result.error}` });
    else checked.push({ ...result, index: at + 1 });
  });
  checked.sort((a, b) => a.seq - b.seq || a.index - b.index);

  // In seq order every edge points back; a node whose parent or caller is missing is left out with it.
  const kept = new Set<string>();
  const turns: ImportNode[][] = [];
  let lastInTurn: string | null = null;
  for (const { node, index } of checked) {
    const edge = node.role === 'tool' ? node.calledBy : node.parentId;
    if (kept.has(node.id)) {
      skipped.push({ file, line: index, reason: `node ${index}: id ${node.id} appears twice` });
      continue;
    }
    if (edge && !kept.has(edge)) {
      skipped.push({ file, line: index, reason: `node ${index}: ${node.role === 'tool' ? 'its call' : 'its parent'} ${edge} is not in the file before it` });
      continue;
    }
    kept.add(node.id);
    // A user message starts a turn, and so does an answer that does not follow the turn's last
    // message (a retry, a branch taken elsewhere): the turns the store made when it was written.
    const forks = node.role !== 'tool' && node.role !== 'user' && node.parentId !== lastInTurn;
    if (turns.length === 0 || node.role === 'user' || forks) turns.push([]);
    turns[turns.length - 1]!.push(node);
    if (node.role !== 'tool') lastInTurn = node.id;
  }

  const branchNames: NonNullable<ImportSessionInput['branchNames']> = {};
  for (const branch of Array.isArray(document['branches']) ? document['branches'] : []) {
    if (!isRecord(branch) || typeof branch['headId'] !== 'string' || !kept.has(branch['headId']) || typeof branch['name'] !== 'string') continue;
    const createdAt = typeof branch['createdAt'] === 'number' && Number.isFinite(branch['createdAt']) ? branch['createdAt'] / 1000 : null;
    branchNames[branch['headId']] = { name: branch['name'], ...(createdAt === null ? {} : { createdAt }) };
  }
  const headId = typeof session['headId'] === 'string' && kept.has(session['headId']) ? session['headId'] : null;
  return {
    session: {
      id: session['id'],
      source: typeof session['source'] === 'string' ? session['source'] : '',
      title: typeof session['title'] === 'string' ? session['title'] : '',
      // An automatic title stays automatic: no rename lock that the exported session did not have.
      ...(session['userTitled'] === false ? { autoTitled: true } : {}),
      ...(typeof session['createdAt'] === 'number' && Number.isFinite(session['createdAt']) ? { createdAt: session['createdAt'] / 1000 } : {}),
      turns,
      headId,
      branchNames,
    },
    skipped,
  };
}
