import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors.js';
import { assertNodeId, assertSessionId, DEFAULT_PROJECT_ID } from '../ids.js';
import { toMessage } from '../dag/message-shape.js';
import { entryFromMeta } from '../registry/entry.js';
import { changedRowFields, toRow } from '../registry/row.js';
import { HISTORY_DIR, META_FILE, nodeFileName, readMeta, writeMeta, writeNodeFile } from '../repo/session-files.js';
import { redactMetaInPlace, redactNodeFieldsInPlace } from '../repo/redact-record.js';
import { branchRefPath, commitTurnFiles, SESSION_AUTHOR, stageSessionRepo, type CommitState } from '../repo/session-git.js';
import { serializeCommit, serializeTree, serializeTreeEntry } from '../repo/git-objects.js';
import { PackBuilder } from '../repo/pack-writer.js';
import { DIR_MODE, FILE_MODE, writeNewFileDurably } from '../../fs/atomic-write.js';
import { writeFile } from 'node:fs';
import { defaultRepoDir } from '../session/locations.js';
import { withSession } from '../session/session-access.js';
import { ensureCommitState } from '../session/commit-state.js';
import type { OpenSession, StoreContext } from '../session/store-context.js';
import { sliceCodePoints } from '../text.js';
import type { RegistryEntry, SessionMeta, StoredNode } from '../types.js';
import { applyTurnToMeta, cleanPartsOf, commitMessageOf, lastTimeOf, storedNode, type CleanParts, type ImportNode } from '../session/imported-nodes.js';

export type { ImportNode } from '../session/imported-nodes.js';

export interface ImportSessionInput {
  id: string;
  /** where it came from: claude-code, codex, chatgpt, openprogram */
  source: string;
  title?: string;
  /** the title was made automatically (our own export of a session titled from its first prompt or by the model): it sets no lock */
  autoTitled?: boolean;
  /** Unix seconds; default the first node's time */
  createdAt?: number;
  /** in the source's order; each turn is one commit, dated by its last node */
  turns: ImportNode[][];
  /** the source's current leaf; default the last conversation node written */
  headId?: string | null;
  /** extra meta.json fields (cwd, model, links to a parent session); never the known ones */
  meta?: Record<string, unknown>;
  /** names of branches by their tip's id (createdAt: Unix seconds); a new session only */
  branchNames?: Record<string, { name: string; createdAt?: number }>;
}

export type ImportOutcome = 'added' | 'updated' | 'unchanged' | 'alreadyRecorded';

export interface ImportSessionResult {
  outcome: ImportOutcome;
  nodesAdded: number;
  turnsAdded: number;
  redacted: number;
}

/** Sessions the recording proxy wrote: an import of the same conversation adds nothing (DESIGN §10). */
function recordedByProxy(entry: RegistryEntry): boolean {
  return entry.source.startsWith('proxy:');
}

function validate(input: ImportSessionInput): void {
  assertSessionId(input.id);
  // '' is the app's own sessions' source (our JSON export of one, imported back)
  if (typeof input.source !== 'string') throw new InvalidInputError('source is required');
  if (!Array.isArray(input.turns)) throw new InvalidInputError('turns must be a list');
  const seen = new Set<string>();
  for (const turn of input.turns) {
    for (const node of turn) {
      assertNodeId(node.id);
      if (seen.has(node.id)) throw new InvalidInputError(`node ${node.id} appears twice`);
      seen.add(node.id);
      if (!Number.isFinite(node.createdAt)) throw new InvalidInputError(`node ${node.id} has no time`);
    }
  }
}

interface TurnWriter {
  dir: string;
  state: CommitState;
  meta: SessionMeta;
  seqWidth: number;
  nextSeq: number;
  known: (id: string) => boolean;
}

/**
 * Write one turn's node files, meta.json, and its commit dated by the turn's last node.
 * Edges must point at nodes already written (here or before).
 */
async function writeTurn(ctx: StoreContext, writer: TurnWriter, turn: ImportNode[], clean: CleanParts, finalHead: string | null | undefined, isLast: boolean): Promise<{ nodes: StoredNode[]; redacted: number }> {
  const nodes: StoredNode[] = [];
  const names: string[] = [];
  let redacted = 0;
  for (const item of turn) {
    for (const edge of [item.parentId, item.role === 'tool' ? item.calledBy : null]) {
      if (edge && !writer.known(edge) && !nodes.some((node) => node.id === edge)) throw new InvalidInputError(`node ${item.id} points at ${edge}, which is not written`);
    }
    const built = storedNode(item, writer.nextSeq++, clean);
    redacted += built.redacted;
    const name = nodeFileName(built.node, writer.seqWidth);
    redacted += writeNodeFile(writer.dir, name, built.node, ctx.redactor).redacted;
    nodes.push(built.node);
    names.push(name);
  }
  if (nodes.length === 0) return { nodes, redacted };
  const meta = writer.meta;
  const head = isLast && finalHead && (writer.known(finalHead) || nodes.some((node) => node.id === finalHead)) ? finalHead : null;
  applyTurnToMeta(meta, nodes, redacted, head);
  writeMeta(writer.dir, meta, ctx.redactor);
  await commitTurnFiles(writer.dir, writer.state, names, commitMessageOf(nodes), lastTimeOf(nodes), ctx.redactor);
  return { nodes, redacted };
}

/**
 * Bring a conversation recorded elsewhere in, idempotently: a new session is built whole in a
 * staging directory and moved into place, so a failure or crash leaves no half session; an
 * existing one gets only the nodes it lacks, each turn one commit. One recorded by the proxy is
 * left alone.
 */
export async function importSession(ctx: StoreContext, input: ImportSessionInput): Promise<ImportSessionResult> {
  validate(input);
  const existing = ctx.registry.get(input.id);
  if (existing) {
    if (recordedByProxy(existing)) return { outcome: 'alreadyRecorded', nodesAdded: 0, turnsAdded: 0, redacted: 0 };
    return withSession(ctx, input.id, (session) => extendSession(ctx, session, input));
  }
  return ctx.locks.run(input.id, () => createImported(ctx, input));
}

const NEW_SEQ_WIDTH = 6;
const PARALLEL_WRITES = 32;

/**
 * Every turn of a new session at once: node files on disk, and the objects of one commit per
 * turn (history tree extended, meta.json as it stood after that turn) in one pack, then the ref.
 * The same trees commitTurnFiles would make, so later turns extend them as usual.
 */
async function buildHistory(
  ctx: StoreContext,
  dir: string,
  meta: SessionMeta,
  turns: ImportNode[][],
  finalHead: string | null | undefined,
): Promise<{ nodesAdded: number; redacted: number }> {
  const pack = new PackBuilder();
  const clean = await cleanPartsOf(ctx, turns.flat());
  let initCommit = '';
  for (const object of stageSessionRepo(dir, typeof meta.created_at === 'number' ? meta.created_at : 0).objects) initCommit = pack.add(object.type, object.body);
  const files: { name: string; bytes: Buffer }[] = [];
  const written = new Set<string>();
  const workdirTree = pack.add('tree', serializeTree([{ mode: '100644', name: '.gitkeep', oid: pack.add('blob', Buffer.alloc(0)) }]));
  const historyChunks: Buffer[] = [];
  let head = initCommit;
  let nextSeq = 0;
  let nodesAdded = 0;
  let redacted = 0;
  for (const [index, turn] of turns.entries()) {
    const nodes: StoredNode[] = [];
    let turnRedacted = 0;
    for (const item of turn) {
      for (const edge of [item.parentId, item.role === 'tool' ? item.calledBy : null]) {
        if (edge && !written.has(edge)) throw new InvalidInputError(`node ${item.id} points at ${edge}, which is not written`);
      }
      const built = storedNode(item, nextSeq++, clean);
      // Written straight into the pack, not through writeNodeFile: its own fields (the name) redacted here.
      turnRedacted += built.redacted + redactNodeFieldsInPlace(built.node, ctx.redactor);
      const name = nodeFileName(built.node, NEW_SEQ_WIDTH);
      const bytes = Buffer.from(JSON.stringify(built.node));
      files.push({ name, bytes });
      historyChunks.push(serializeTreeEntry({ mode: '100644', name, oid: pack.add('blob', bytes) }));
      nodes.push(built.node);
      written.add(built.node.id);
    }
    nodesAdded += nodes.length;
    redacted += turnRedacted;
    applyTurnToMeta(meta, nodes, turnRedacted, index === turns.length - 1 && finalHead && written.has(finalHead) ? finalHead : null);
    // Each turn's meta.json goes into the pack as it stood, not through writeMeta: redacted here
    // (the title, the source's cwd and branch), in place, so the last writeMeta and the registry agree.
    redacted += redactMetaInPlace(meta, ctx.redactor);
    const rootTree = pack.add(
      'tree',
      serializeTree([
        { mode: '040000', name: HISTORY_DIR, oid: pack.add('tree', Buffer.concat(historyChunks)) },
        { mode: '100644', name: META_FILE, oid: pack.add('blob', Buffer.from(JSON.stringify(meta))) },
        { mode: '040000', name: 'workdir', oid: workdirTree },
      ]),
    );
    const message = commitMessageOf(nodes);
    head = pack.add('commit', serializeCommit({ tree: rootTree, parents: [head], author: { ...SESSION_AUTHOR, timestamp: lastTimeOf(nodes) }, message }));
  }
  // The staging directory is this import's alone: node files are written many at a time.
  const history = join(dir, HISTORY_DIR);
  mkdirSync(history, { recursive: true, mode: DIR_MODE });
  for (let at = 0; at < files.length; at += PARALLEL_WRITES) {
    await Promise.all(files.slice(at, at + PARALLEL_WRITES).map((file) => writeNewFile(join(history, file.name), file.bytes)));
  }
  // The pack, its index and the ref synced together in the thread pool (their syncs overlap);
  // node files and meta.json are not synced, as for every other session write.
  await Promise.all([pack.write(join(dir, '.git')), writeNewFileDurably(branchRefPath(dir), [Buffer.from(`${head}\n`)])]);
  writeMeta(dir, meta, ctx.redactor);
  return { nodesAdded, redacted };
}

// fs's callback form: without the FileHandle of fs/promises, half the main thread's time per file.
function writeNewFile(path: string, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => writeFile(path, bytes, { flag: 'wx', mode: FILE_MODE }, (error) => (error ? reject(error) : resolve())));
}

/** meta.json's branch labels from the names given, for tips this import wrote. */
function branchLabelsOf(input: ImportSessionInput, turns: ImportNode[][]): SessionMeta['branches'] {
  const labels: NonNullable<SessionMeta['branches']> = {};
  if (!input.branchNames) return labels;
  const timeOf = new Map(turns.flatMap((turn) => turn.map((node) => [node.id, node.createdAt] as const)));
  for (const [tip, label] of Object.entries(input.branchNames)) {
    const tipTime = timeOf.get(tip);
    if (tipTime === undefined || typeof label.name !== 'string' || label.name.trim() === '') continue;
    const createdAt = typeof label.createdAt === 'number' && Number.isFinite(label.createdAt) ? label.createdAt : tipTime;
    labels[tip] = { name: sliceCodePoints(label.name.trim(), 200), created_at: createdAt, updated_at: tipTime };
  }
  return labels;
}

async function createImported(ctx: StoreContext, input: ImportSessionInput): Promise<ImportSessionResult> {
  const turns = input.turns.filter((turn) => turn.length > 0);
  const dir = defaultRepoDir(ctx, input.id);
  if (ctx.registry.has(input.id)) throw new InvalidInputError(`session ${input.id} appeared during its import; import again`);
  if (existsSync(dir) && readMeta(dir)) throw new InvalidInputError(`the directory of ${input.id} holds a session the registry does not know; restart the server to reconcile it`);
  if (turns.length === 0) return { outcome: 'unchanged', nodesAdded: 0, turnsAdded: 0, redacted: 0 };
  // A dot name is never a session id: start-up and rebuild pass over a staging directory left by a crash.
  const prefix = `.import-${input.id}-`;
  // Under this id's lock no other import of it runs: what carries its prefix was left by a crash.
  // Only its own (prefix + 8 hex): `<id>-agent-…` is another session, maybe being imported now.
  for (const name of readdirSync(ctx.sessionsDir)) {
    if (name.startsWith(prefix) && /^[0-9a-f]{8}$/.test(name.slice(prefix.length))) rmSync(join(ctx.sessionsDir, name), { recursive: true, force: true });
  }
  const staging = join(ctx.sessionsDir, `${prefix}${randomBytes(4).toString('hex')}`);
  const firstTime = input.createdAt ?? turns[0]![0]!.createdAt;
  try {
    mkdirSync(staging, { recursive: true, mode: DIR_MODE });
    const meta: SessionMeta = {
      ...(input.meta ?? {}),
      id: input.id,
      agent_id: 'main',
      title: input.title?.trim() ?? '',
      source: input.source,
      created_at: firstTime,
      updated_at: firstTime,
      project_id: DEFAULT_PROJECT_ID,
      head_id: null,
      status: 'idle',
      pinned: false,
      archived: false,
      unread: false,
      group: '',
      channel: null,
      account_id: null,
      peer_display: null,
      peer_id: null,
      preview: null,
      // A title the source gave (a summary, the conversation's name) is kept like a person's.
      _user_titled: (input.title?.trim() ?? '') !== '' && input.autoTitled !== true,
      _auto_titled: (input.title?.trim() ?? '') !== '' && input.autoTitled === true,
      _title_gen_count: 0,
      turn_count: 0,
      workdirs: [],
      branches: branchLabelsOf(input, turns),
      redacted: 0,
    };
    const built = await buildHistory(ctx, staging, meta, turns, input.headId);
    const { nodesAdded, redacted } = built;
    ctx.writer.journal(input.id);
    renameSync(staging, dir);
    const entry = entryFromMeta(meta, input.id, typeof meta.preview === 'string' ? meta.preview : null);
    ctx.registry.set(entry);
    ctx.writer.markDirty();
    ctx.events.emit('session_created', toRow(ctx, entry));
    return { outcome: 'added', nodesAdded, turnsAdded: turns.length, redacted };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

async function extendSession(ctx: StoreContext, session: OpenSession, input: ImportSessionInput): Promise<ImportSessionResult> {
  const turns = input.turns.map((turn) => turn.filter((node) => !session.graph.get(node.id))).filter((turn) => turn.length > 0);
  // Nothing new: the head stays where the person may have moved it since.
  if (turns.length === 0) return { outcome: 'unchanged', nodesAdded: 0, turnsAdded: 0, redacted: 0 };
  const state = await ensureCommitState(session);
  const meta: SessionMeta = { ...session.meta };
  const writer: TurnWriter = {
    dir: session.dir,
    state,
    meta,
    seqWidth: session.seqWidth,
    nextSeq: session.graph.lastSeq + 1,
    known: (id) => session.graph.get(id) !== undefined,
  };
  const clean = await cleanPartsOf(ctx, turns.flat());
  ctx.writer.journal(session.id);
  let nodesAdded = 0;
  let redacted = 0;
  const before = ctx.registry.get(session.id)!;
  try {
    for (const [index, turn] of turns.entries()) {
      const result = await writeTurn(ctx, writer, turn, clean, input.headId, index === turns.length - 1);
      for (const node of result.nodes) {
        session.graph.add(node);
        session.fileNames.set(node.id, nodeFileName(node, session.seqWidth));
        ctx.events.emit('message_appended', { sessionId: session.id, message: toMessage(node) });
      }
      nodesAdded += result.nodes.length;
      redacted += result.redacted;
      if (session.headDepth !== null) session.headDepth++;
      if (state.head) ctx.events.emit('turn_committed', { sessionId: session.id, turn: meta.turn_count ?? 0, sha: state.head });
    }
  } finally {
    // What was written stays consistent with memory even when a later turn failed.
    session.meta = { ...meta };
  }
  const changed = ctx.registry.patch(session.id, { updated_at: meta.updated_at, title: meta.title, preview: typeof meta.preview === 'string' ? meta.preview : before.preview });
  if (changed.length > 0) {
    ctx.writer.markDirty();
    ctx.events.emit('session_updated', { id: session.id, ...changedRowFields(ctx, ctx.registry.get(session.id)!, changed) });
  }
  return { outcome: 'updated', nodesAdded, turnsAdded: turns.length, redacted };
}
