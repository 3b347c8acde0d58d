export { importFile, importInputs, inputsFromPaths, isImportableName, type ImportInput, type ImportOptions, type ImportProgress, type ImportTarget } from './run.js';
export { emptyReport, mergeReports, type ImportReport, type SkippedLine } from './types.js';
