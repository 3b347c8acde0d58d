export { afterRun, maxRuns, nextStep, runsLeft, startBisect, type BisectState, type BisectStep, type Verdict } from './bisect-plan.js';
export { bisectRange, BisectRangeError, codeTurns, type BisectRange, type CodeTurn, type TimelineTurnCommits } from './turn-range.js';
