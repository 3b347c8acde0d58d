export { importFile, importInputs, inputsFromPaths, type ImportInput, type ImportOptions, type ImportProgress, type ImportTarget } from './import-file.js';
export { emptyReport, mergeReports, type ImportReport, type SkippedLine } from './types.js';
