'use client';

import { TextField } from '@/components/ui/text-field';

export interface RetentionFieldsValue {
  archive: string;
  trash: string;
}

/** The two limits of a retention policy, in days; an empty field means "never". */
export function RetentionFields({ value, onChange, disabled }: { value: RetentionFieldsValue; onChange(next: RetentionFieldsValue): void; disabled?: boolean }) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      <TextField
        label="Archive sessions with no activity for (days)"
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        placeholder="never"
        value={value.archive}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, archive: event.target.value })}
      />
      <TextField
        label="Move archived sessions to the Trash after (days)"
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        placeholder="never"
        value={value.trash}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, trash: event.target.value })}
      />
    </div>
  );
}
