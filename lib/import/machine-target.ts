import type { ImportTarget } from './import-file.js';

/** The longest machine name an import takes (a host name is at most 253). */
export const MAX_MACHINE_LENGTH = 100;

/** Why a machine name (`?machine=` of `POST /api/import`, `collect --name`) is refused, or null when it is fine. */
export function machineNameProblem(name: string): string | null {
  if (name.trim() === '') return 'the machine name is empty';
  if (name.length > MAX_MACHINE_LENGTH) return `the machine name is longer than ${MAX_MACHINE_LENGTH} characters`;
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'the machine name holds a control character';
  return null;
}

/**
 * The same import, each session marked with the machine it came from (DESIGN §17): meta.json's
 * `machine`, which a new session keeps; a session the server already has keeps what it had.
 */
export function withMachine(target: ImportTarget, machine: string): ImportTarget {
  const name = machine.trim();
  return { importSession: (input) => target.importSession({ ...input, meta: { ...input.meta, machine: name } }) };
}
