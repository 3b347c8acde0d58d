'use client';

import { DataTable } from '@/components/ui/data-table';
import { tableCsv, type UsageTableData } from './usage-csv';

/** The file saved as the browser saves any download: a link to the text, clicked and let go. */
function downloadCsv(csv: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The chart's table, and a CSV download of exactly its cells. */
export function UsageTable({ caption, table, fileName }: { caption: string; table: UsageTableData; fileName: string }) {
  return (
    <div className="space-y-2">
      <DataTable caption={caption} columns={table.columns}>
        {table.rows.length === 0 ? (
          <tr>
            <td colSpan={table.columns.length} className="px-3 py-2 text-neutral-500">
              Nothing recorded in this range.
            </td>
          </tr>
        ) : (
          table.rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) => (
                <td key={column} className="whitespace-nowrap px-3 py-1.5 tabular-nums">
                  {cell}
                </td>
              ))}
            </tr>
          ))
        )}
      </DataTable>
      <button type="button" onClick={() => downloadCsv(tableCsv(table), fileName)} className="text-sm text-blue-700 underline dark:text-blue-400">
        Download CSV
      </button>
    </div>
  );
}
