/** An error or success line under a form, announced to screen readers. */
export function FormMessage({ error, success }: { error?: string | null; success?: string | null }) {
  if (error) {
    return (
      <p role="alert" className="text-sm text-red-700 dark:text-red-400">
        {error}
      </p>
    );
  }
  if (success) {
    return (
      <p role="status" className="text-sm text-green-700 dark:text-green-400">
        {success}
      </p>
    );
  }
  return null;
}
