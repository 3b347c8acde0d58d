export { effectiveRetention, isRetentionOff, MAX_RETENTION_DAYS, RETENTION_OFF, retentionPolicySchema, type EffectiveRetention, type RetentionPolicy } from './retention-policy.js';
export { readInstanceRetention, readUserRetention, writeInstanceRetention, writeUserRetention } from './retention-files.js';
export { sweepRetention, type RetentionStore, type SweepClock, type SweepResult } from './retention-sweep.js';
