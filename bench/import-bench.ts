/**
 * DESIGN §9 `import_cc_1k_s`: 1,000 Claude Code transcripts of 100 messages each (25 turns of a
 * prompt, a tool call, its result and the answer) imported into an empty store, from disk.
 * And the peak memory of importing one large ChatGPT export (`import_chatgpt_peak_rss_mb`,
 * 500 MB unless BENCH_CHATGPT_MB says otherwise): the file is written as a stream, so the peak
 * is the import's own.
 */
import { createWriteStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importInputs, inputsFromPaths } from '../lib/import/index.js';
import { redactMessage } from '../lib/redact/index.js';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { round } from './store-bench.js';

const TRANSCRIPTS = 1000;
const TURNS = 25;
const T0 = Date.parse('2026-11-01T09:00:00Z');

export function transcript(index: number): string {
  const sessionId = `b0000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
  const lines: string[] = [];
  let parent: string | null = null;
  let at = T0 + index * 60_000;
  const line = (type: string, message: unknown, extra: Record<string, unknown> = {}): void => {
    const uuid = `${sessionId.slice(0, 24)}${String(lines.length).padStart(12, '0')}`;
    at += 1500;
    lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/home/user/proj', sessionId, version: '2.1.3', gitBranch: 'main', type, message, uuid, timestamp: new Date(at).toISOString(), ...extra }));
    parent = uuid;
  };
  for (let turn = 0; turn < TURNS; turn++) {
    line('user', { role: 'user', content: `Turn ${turn}: please look at src/module_${turn}.py and explain what parse_${turn} does with its input.` });
    const toolId = `toolu_${String(index).padStart(6, '0')}${String(turn).padStart(4, '0')}abcdefghij`;
    line('assistant', { id: `msg_${index}_${turn}_a`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: toolId, name: 'Read', input: { file_path: `/home/user/proj/src/module_${turn}.py` } }] }, { requestId: `req_${index}_${turn}_a` });
    line('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: `def parse_${turn}(value):\n    return value.strip().split(",")\n`.repeat(4) }] });
    line('assistant', { id: `msg_${index}_${turn}_b`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `parse_${turn} strips the value and splits it on commas, returning a list of strings. It does not handle quoted fields.` }] }, { requestId: `req_${index}_${turn}_b` });
  }
  return `${lines.join('\n')}\n`;
}

async function benchClaudeCode(): Promise<Record<string, number>> {
  const root = scratchDir('em-bench-import-cc-');
  const projects = join(root, 'projects', '-home-user-proj');
  mkdirSync(projects, { recursive: true });
  for (let index = 0; index < TRANSCRIPTS; index++) writeFileSync(join(projects, `b0000000-0000-4000-8000-${String(index).padStart(12, '0')}.jsonl`), transcript(index));
  const store = await SessionStore.open({ stateDir: join(root, 'state'), redactor: redactMessage });
  try {
    const started = performance.now();
    const report = await importInputs(store, await inputsFromPaths([join(root, 'projects')]));
    const seconds = (performance.now() - started) / 1000;
    if (report.added !== TRANSCRIPTS || report.skipped.length > 0) throw new Error(`import_cc_1k_s: ${JSON.stringify({ ...report, skipped: report.skipped.slice(0, 3) })}`);
    return { import_cc_1k_s: round(seconds) };
  } finally {
    await store.close();
  }
}

/** A conversation of `nodes` messages in a line, each about `textBytes` long. */
function conversation(index: number, nodes: number, textBytes: number): string {
  const id = `c0000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
  const created = 1_790_000_000 + index * 3600;
  const mapping: Record<string, unknown> = { root: { id: 'root', message: null, parent: null, children: ['n0'] } };
  const filler = 'The quick brown fox jumps over the lazy dog while the export grows. '.repeat(Math.ceil(textBytes / 68)).slice(0, textBytes);
  for (let n = 0; n < nodes; n++) {
    const role = n % 2 === 0 ? 'user' : 'assistant';
    mapping[`n${n}`] = {
      id: `n${n}`,
      parent: n === 0 ? 'root' : `n${n - 1}`,
      children: n + 1 < nodes ? [`n${n + 1}`] : [],
      message: { id: `n${n}`, author: { role, name: null, metadata: {} }, create_time: created + n * 30, content: { content_type: 'text', parts: [`${n}: ${filler}`] }, status: 'finished_successfully', recipient: 'all', metadata: {} },
    };
  }
  return JSON.stringify({ id, conversation_id: id, title: `Conversation ${index}`, create_time: created, update_time: created + nodes * 30, mapping, current_node: `n${nodes - 1}` });
}

async function writeExport(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  const write = (text: string): Promise<void> => new Promise((done) => (out.write(text) ? done() : out.once('drain', done)));
  await write('[');
  let bytes = 1;
  let index = 0;
  while (bytes < megabytes * 1024 * 1024) {
    const text = (index === 0 ? '' : ',') + conversation(index, 40, 12_000);
    await write(text);
    bytes += text.length;
    index++;
  }
  await write(']');
  await new Promise<void>((done) => out.end(done));
  return index;
}

async function benchChatGpt(): Promise<Record<string, number>> {
  const megabytes = Number(process.env['BENCH_CHATGPT_MB'] ?? 500);
  const root = scratchDir('em-bench-import-chatgpt-');
  const file = join(root, 'conversations.json');
  const conversations = await writeExport(file, megabytes);
  const store = await SessionStore.open({ stateDir: join(root, 'state'), redactor: redactMessage });
  try {
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const report = await importInputs(store, await inputsFromPaths([file]));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    if (report.added !== conversations) throw new Error(`chatgpt import: ${report.added} of ${conversations} added`);
    return {
      import_chatgpt_export_mb: round(statSync(file).size / 1024 / 1024),
      import_chatgpt_s: round(seconds),
      import_chatgpt_peak_rss_mb: round(peak / 1024 / 1024),
      import_chatgpt_rss_growth_mb: round((peak - rssBefore) / 1024 / 1024),
    };
  } finally {
    await store.close();
  }
}

export { benchClaudeCode, benchChatGpt };
