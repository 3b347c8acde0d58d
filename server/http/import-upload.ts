import { importFile, machineNameProblem, withMachine } from '@/lib/import/index';

export type { ImportReport, SkippedLine } from '@/lib/import/index';
import { domainErrorStatus } from './domain-error-status';
import { jsonError, withRouteWrite } from './route-auth';

const MAX_NAME_LENGTH = 1024;

/**
 * `POST /api/import?name=<relative path>` with one file as the raw body (a Claude Code or Codex
 * .jsonl, a ChatGPT conversations.json or the export's zip) → the import report of that file
 * (DESIGN §10). The body is parsed as it arrives and never held whole: a 500 MB export costs a
 * conversation's worth of memory. The name tells the format and names the file in the report.
 */
export async function importUpload(headers: Headers, url: URL, body: AsyncIterable<Uint8Array> | null): Promise<Response> {
  return withRouteWrite(headers, async (caller) => {
    const name = url.searchParams.get('name');
    if (!name || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f]/.test(name)) {
      return jsonError(400, 'name required: the file name (or its path in an uploaded folder), up to 1,024 characters');
    }
    if (!body) return jsonError(400, 'send the file as the request body');
    // `entity-memory collect` names the machine the file is from (DESIGN §17)
    const machine = url.searchParams.get('machine');
    const machineProblem = machine === null ? null : machineNameProblem(machine);
    if (machineProblem) return jsonError(400, `machine: ${machineProblem}`);
    try {
      return Response.json(await importFile(machine === null ? caller.store : withMachine(caller.store, machine), name, body));
    } catch (error) {
      const refused = domainErrorStatus(error);
      if (refused === null) throw error;
      return jsonError(refused.status, refused.message);
    }
  }, 'import');
}
