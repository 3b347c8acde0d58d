'use client';

import { ModelSettingsForm } from './model-settings-form';

/** The Admin page's model section: one mount point, so the page needs one line. */
export function ModelsAdminSection() {
  return (
    <section className="space-y-4" aria-labelledby="models-title">
      <h2 id="models-title" className="text-lg font-semibold">
        Models
      </h2>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">Only admins set the model endpoint; it applies to every user from the next message on.</p>
      <ModelSettingsForm />
    </section>
  );
}
