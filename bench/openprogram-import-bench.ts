/**
 * `import_openprogram_100_s`: an OpenProgram state directory of 100 sessions (5 turns each,
 * written by our own store) moved into an empty store through the migration journal: copy,
 * git fsck, publish, location. Redaction on, as for a user who left it on.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importStateDir } from '../lib/import/openprogram.js';
import { redactMessage } from '../lib/redact/index.js';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { round } from './store-bench.js';

const SESSIONS = 100;
const TURNS = 5;

export async function benchOpenProgramImport(): Promise<Record<string, number>> {
  const root = scratchDir('bench-openprogram-');
  const source = await SessionStore.open({ stateDir: join(root, 'state') });
  for (let index = 0; index < SESSIONS; index++) {
    const id = `op-bench-${index}`;
    await source.createSession({ id, source: 'web' });
    for (let turn = 0; turn < TURNS; turn++) {
      await source.appendMessage(id, { role: 'user', content: `Turn ${turn} of session ${index}: what does parse_${turn} do?` });
      await source.appendMessage(id, { role: 'assistant', content: `parse_${turn} strips its input and splits it on commas.`.repeat(4) });
      await source.finalizeTurn(id);
    }
  }
  await source.close();
  const target = await SessionStore.open({ stateDir: join(root, 'data'), redactor: redactMessage });
  const started = performance.now();
  const report = await importStateDir(target, join(root, 'state'));
  const seconds = (performance.now() - started) / 1000;
  await target.close();
  if (report.added !== SESSIONS) throw new Error(`expected ${SESSIONS} sessions added, got ${JSON.stringify(report)}`);
  return { import_openprogram_100_s: round(seconds) };
}
