import { TriangleAlert } from 'lucide-react';

/**
 * A turn put git metadata into the project (a nested repository, a .gitmodules). Our git ran
 * nothing from it, but the user's own git in that folder would take its config and hooks.
 */
export function NestedGitWarning({ paths }: { paths: string[] }) {
  return (
    <div role="note" aria-label="Git metadata added" className="mt-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
      <p className="flex items-center gap-1.5 font-medium">
        <TriangleAlert size={16} aria-hidden="true" />
        This turn added git metadata to the project
      </p>
      <ul className="mt-1 list-disc pl-6">
        {paths.map((path) => (
          <li key={path}>
            <code className="break-all">{path}</code>
          </li>
        ))}
      </ul>
      <p className="mt-1 text-xs">Its config and hooks run for anyone who uses git in that folder: look at them (or remove them) before you do.</p>
    </div>
  );
}
