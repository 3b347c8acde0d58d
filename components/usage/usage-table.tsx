'use client';

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
      <div className="overflow-x-auto rounded-md border border-neutral-200 dark:border-neutral-800">
        <table className="w-full min-w-max text-left text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-neutral-50 text-xs uppercase text-neutral-600 dark:bg-neutral-900 dark:text-neutral-400">
            <tr>
              {table.columns.map((column) => (
                <th key={column} scope="col" className="px-3 py-2 font-medium">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-200 dark:divide-neutral-800">
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
          </tbody>
        </table>
      </div>
      <button type="button" onClick={() => downloadCsv(tableCsv(table), fileName)} className="text-sm text-blue-700 underline dark:text-blue-400">
        Download CSV
      </button>
    </div>
  );
}
