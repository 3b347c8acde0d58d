// Types of scripts/check-layers.mjs for its test (the script itself stays plain Node).
export interface Edge {
  from: string;
  to: string;
  rule: 'layer' | 'package' | 'type-only' | 'store-order' | 'peer' | 'index' | 'test-helper' | 'unplaced' | 'unresolved' | 'cycle';
  detail: string;
}
export interface CheckResult {
  code: 0 | 1 | 2;
  out: string[];
  err: string[];
}
export function findViolations(root: string): Edge[];
export function runCheck(argv: string[]): CheckResult;
export function formatEdge(edge: Edge): string;
