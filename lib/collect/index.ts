export { defaultRoots, defaultStatePath, runCollector, type CollectorOptions, type CollectSummary } from './collector.js';
export { CollectRefused, type CollectServer } from './send-file.js';
export { collectUnits, TOKEN_VARIABLE, type UnitInput } from './install-units.js';
