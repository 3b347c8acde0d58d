export { writeBackup, BackupError, type BackupProgress, type BackupSummary, type WriteBackupOptions } from './write-backup.js';
export { restoreBackup, verifyBackup, type BackupCheck, type RestoreSummary } from './read-backup.js';
export { BACKUP_FORMAT, BACKUP_VERSION } from './backup-format.js';
