import type { AuditEntry } from './audit-entry.js';

export const AUDIT_CSV_COLUMNS = ['at', 'actor', 'ip', 'action', 'target', 'result'] as const;

// The browser's usage CSV has its own copy of this rule (components/usage/usage-csv.ts): components cannot import lib/.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180 quoting, and a cell a spreadsheet would run as a formula (OWASP's CSV injection list:
 * = + - @, tab, carriage return) gets a leading apostrophe: a failed sign-in's typed email or a
 * share link's target is text the admin opens.
 */
export function auditCsvCell(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One row; `actorName` shows the actor as the table does (an email for a user id). */
export function auditCsvRow(entry: AuditEntry, actorName: (actor: string | null) => string): string {
  const cells = [new Date(entry.at).toISOString(), actorName(entry.actor), entry.ip ?? '', entry.action, entry.target, entry.result];
  return `${cells.map(auditCsvCell).join(',')}\r\n`;
}

export const AUDIT_CSV_HEADER = `${AUDIT_CSV_COLUMNS.join(',')}\r\n`;
