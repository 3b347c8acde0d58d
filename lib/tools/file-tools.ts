import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { resolveToolPath, ToolRefusal, type ToolRoots } from './confine.js';

/**
 * The agent's built-in file tools: read_file, write_file, list_directory, search_text. Every path
 * goes through confine.ts at the moment of use; files are opened with O_NOFOLLOW so the checked
 * path is the one used. Results are text for the model.
 */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

const pathParam = { type: 'string', description: 'a path relative to the project folder (or absolute, inside it or a working directory)' };

export const FILE_TOOLS: readonly ToolSpec[] = [
  { name: 'read_file', description: 'Read a text file.', parameters: { type: 'object', properties: { path: pathParam }, required: ['path'] } },
  {
    name: 'write_file',
    description: 'Create or replace a text file with the given content.',
    parameters: { type: 'object', properties: { path: pathParam, content: { type: 'string' } }, required: ['path', 'content'] },
  },
  { name: 'list_directory', description: 'List a folder (default: the project folder).', parameters: { type: 'object', properties: { path: pathParam } } },
  {
    name: 'search_text',
    description: 'Find lines containing a text (case-insensitive) in the files below a folder.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, path: pathParam }, required: ['query'] },
  },
];

/** A file the tool is about to change: the dispatcher snapshots it for undo and records it as a known write. */
export interface PendingWrite {
  root: string;
  rel: string;
  abs: string;
  /** the root is the project folder (not an extra working directory) */
  inProject: boolean;
}

export interface ToolContext {
  roots: ToolRoots;
  beforeWrite?: (write: PendingWrite) => Promise<void>;
}

export interface ToolOutcome {
  output: string;
  /** refused by the confinement rules (or bad arguments): the model is told why */
  refused: boolean;
  written?: PendingWrite;
}

const MAX_READ_BYTES = 10 * 1024 * 1024;
const MAX_LIST_ENTRIES = 1_000;
const MAX_MATCHES = 200;
const MAX_SEARCH_FILES = 5_000;
const MAX_SEARCH_FILE_BYTES = 1024 * 1024;
const NOFOLLOW = constants.O_NOFOLLOW;

function parseArgs(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw === '' ? '{}' : raw);
  } catch {
    throw new ToolRefusal('the arguments are not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ToolRefusal('the arguments must be a JSON object');
  return value as Record<string, unknown>;
}

function stringArg(args: Record<string, unknown>, key: string, optional = false): string {
  const value = args[key];
  if (value === undefined && optional) return '';
  if (typeof value !== 'string') throw new ToolRefusal(`${key} must be a string`);
  return value;
}

async function readText(abs: string, limit: number): Promise<Buffer> {
  const file = await open(abs, constants.O_RDONLY | NOFOLLOW);
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new ToolRefusal('not a regular file');
    if (info.size > limit) throw new ToolRefusal(`the file is ${info.size} bytes, more than the ${limit} this tool reads`);
    return await file.readFile();
  } finally {
    await file.close();
  }
}

const looksBinary = (data: Buffer) => data.subarray(0, 8_000).includes(0);

async function readFileTool(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const target = await resolveToolPath(stringArg(args, 'path'), ctx.roots);
  if (!target.exists) throw new ToolRefusal(`${target.rel || '.'} does not exist`);
  const data = await readText(target.abs, MAX_READ_BYTES);
  if (looksBinary(data)) throw new ToolRefusal(`${target.rel} is a binary file`);
  return { output: data.toString('utf8'), refused: false };
}

async function writeFileTool(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const content = stringArg(args, 'content');
  const target = await resolveToolPath(stringArg(args, 'path'), ctx.roots);
  if (target.rel === '') throw new ToolRefusal('the path names a folder, not a file');
  const existing = await lstat(target.abs).catch(() => null);
  if (existing && !existing.isFile()) throw new ToolRefusal(`${target.rel} is not a regular file`);
  const write: PendingWrite = { root: target.root, rel: target.rel, abs: target.abs, inProject: target.root === ctx.roots.project };
  await ctx.beforeWrite?.(write);
  await mkdir(dirname(target.abs), { recursive: true });
  // Checked again after mkdir: a folder created meanwhile could be a link put there.
  const again = await resolveToolPath(target.abs, ctx.roots);
  if (again.abs !== target.abs) throw new ToolRefusal(`${target.rel} changed while it was being written`);
  const file = await open(target.abs, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW, 0o644);
  try {
    await file.writeFile(content, 'utf8');
  } finally {
    await file.close();
  }
  return { output: `wrote ${Buffer.byteLength(content)} bytes to ${target.rel}`, refused: false, written: write };
}

async function listDirectoryTool(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const target = await resolveToolPath(stringArg(args, 'path', true), ctx.roots);
  if (!target.exists) throw new ToolRefusal(`${target.rel || '.'} does not exist`);
  const info = await lstat(target.abs);
  if (!info.isDirectory()) throw new ToolRefusal(`${target.rel} is not a folder`);
  const entries = (await readdir(target.abs, { withFileTypes: true }))
    .filter((entry) => entry.name.toLowerCase() !== '.git')
    .sort((a, b) => a.name.localeCompare(b.name));
  const lines = entries.slice(0, MAX_LIST_ENTRIES).map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.isSymbolicLink() ? `${entry.name}@` : entry.name));
  if (entries.length > MAX_LIST_ENTRIES) lines.push(`… and ${entries.length - MAX_LIST_ENTRIES} more`);
  return { output: lines.length > 0 ? lines.join('\n') : '(empty folder)', refused: false };
}

async function searchTextTool(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const query = stringArg(args, 'query');
  if (query === '') throw new ToolRefusal('query must not be empty');
  const start = await resolveToolPath(stringArg(args, 'path', true), ctx.roots);
  if (!start.exists) throw new ToolRefusal(`${start.rel || '.'} does not exist`);
  const needle = query.toLowerCase();
  const matches: string[] = [];
  let files = 0;
  const prefix = start.rel === '' ? '' : `${start.rel}/`;
  // Links are not followed (lstat / withFileTypes): the walk never leaves the folder it checked.
  async function walk(dir: string, rel: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (matches.length >= MAX_MATCHES || files >= MAX_SEARCH_FILES) return;
      if (entry.name.toLowerCase() === '.git') continue;
      const path = join(dir, entry.name);
      const relPath = `${rel}${entry.name}`;
      if (entry.isDirectory()) await walk(path, `${relPath}/`);
      else if (entry.isFile()) {
        files++;
        const data = await readText(path, MAX_SEARCH_FILE_BYTES).catch(() => null);
        if (!data || looksBinary(data)) continue;
        data
          .toString('utf8')
          .split('\n')
          .forEach((line, index) => {
            if (matches.length < MAX_MATCHES && line.toLowerCase().includes(needle)) matches.push(`${relPath}:${index + 1}: ${line.slice(0, 300)}`);
          });
      }
    }
  }
  const info = await lstat(start.abs);
  if (info.isDirectory()) await walk(start.abs, prefix);
  else throw new ToolRefusal(`${start.rel} is not a folder`);
  if (matches.length >= MAX_MATCHES) matches.push(`(stopped at ${MAX_MATCHES} matches)`);
  return { output: matches.length > 0 ? matches.join('\n') : `no line contains ${JSON.stringify(query)}`, refused: false };
}

const TOOLS: Record<string, (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>> = {
  read_file: readFileTool,
  write_file: writeFileTool,
  list_directory: listDirectoryTool,
  search_text: searchTextTool,
};

/** Run one tool call. Refusals and file errors come back as the outcome; nothing is thrown. */
export async function runFileTool(name: string, rawArgs: string, ctx: ToolContext): Promise<ToolOutcome> {
  const tool = TOOLS[name];
  if (!tool) return { output: `Refused: there is no tool named ${JSON.stringify(name)}`, refused: true };
  try {
    return await tool(parseArgs(rawArgs), ctx);
  } catch (error) {
    if (error instanceof ToolRefusal) return { output: `Refused: ${error.message}`, refused: true };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { output: 'Refused: the path is a symbolic link', refused: true };
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') return { output: `Error: ${code} for that path`, refused: false };
    // A snapshot refusal (too large to keep for undo) and the like: said to the model, not hidden.
    if (typeof (error as { code?: unknown }).code === 'string') return { output: `Refused: ${(error as Error).message}`, refused: true };
    throw error;
  }
}

/** Tool results over `limit` bytes go to the model cut, with a note; the caller keeps the whole. */
const MAX_TOOL_RESULT_BYTES = 64 * 1024;

export function cutToolResult(text: string, limit = MAX_TOOL_RESULT_BYTES): { text: string; cut: boolean; bytes: number } {
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return { text, cut: false, bytes };
  let kept = Buffer.from(text).subarray(0, limit).toString('utf8');
  if (kept.endsWith('\uFFFD')) kept = kept.slice(0, -1); // never half a character
  return { text: kept, cut: true, bytes };
}
