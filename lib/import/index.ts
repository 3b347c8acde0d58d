export { importFile, importInputs, inputsFromPaths, type ImportInput, type ImportOptions, type ImportProgress, type ImportTarget } from './import-file.js';
export { emptyReport, mergeReports, type ImportReport, type SkippedLine } from './types.js';
// The readers, for lib/resume's writers to be checked against (their inverse).
export { parseClaudeCode } from './claude-code.js';
export { parseCodex } from './codex.js';
export type { NumberedLine, ParsedSession } from './types.js';
export { machineNameProblem, withMachine } from './machine-target.js';
