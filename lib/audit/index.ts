export {
  AUDIT_ACTIONS,
  AUDIT_RESULTS,
  AuditError,
  allAuditEntries,
  boundedEntry,
  matchesFilter,
  parseAuditLine,
  type AuditAction,
  type AuditEntry,
  type AuditFilter,
  type AuditLog,
  type AuditPage,
  type AuditQuery,
  type AuditResult,
  type ListedAuditEntry,
} from './audit-entry.js';
export { FileAuditLog, AUDIT_LOG_FILE, type FileAuditLogOptions } from './file-audit-log.js';
export { AUDIT_CSV_COLUMNS, AUDIT_CSV_HEADER, auditCsvCell, auditCsvRow } from './audit-csv.js';
