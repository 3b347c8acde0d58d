/** The download addresses of server/http/export.ts. */
export type ExportFormat = 'md' | 'json' | 'bundle';

export const EXPORT_ITEMS: ReadonlyArray<{ format: ExportFormat; label: string }> = [
  { format: 'md', label: 'Export as Markdown' },
  { format: 'json', label: 'Export as JSON' },
  { format: 'bundle', label: 'Download git bundle' },
];

export function exportUrl(sessionId: string, format: ExportFormat): string {
  return `/api/export/${encodeURIComponent(sessionId)}?format=${format}`;
}

export const EXPORT_ZIP_URL = '/api/export/all.zip';
