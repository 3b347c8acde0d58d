'use client';

import type { FormEvent } from 'react';
import { TextField } from '@/components/ui/text-field';

export interface RetentionFieldsValue {
  archive: string;
  trash: string;
}

const FIELDS: { key: keyof RetentionFieldsValue; label: string }[] = [
  { key: 'archive', label: 'Archive sessions with no activity for (days)' },
  { key: 'trash', label: 'Move archived sessions to the Trash after (days)' },
];

/** The two limits of a retention policy, in days; an empty field means "never". */
export function RetentionFields({ value, onChange, disabled }: { value: RetentionFieldsValue; onChange(next: RetentionFieldsValue): void; disabled?: boolean }) {
  return (
    <div className="grid gap-3 sm:grid-cols-2">
      {FIELDS.map(({ key, label }) => (
        <TextField
          key={key}
          label={label}
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          placeholder="never"
          value={value[key]}
          disabled={disabled}
          onChange={(event) => onChange({ ...value, [key]: event.target.value })}
        />
      ))}
    </div>
  );
}

/** A form's submit handler that stays on the page and runs `submit`. */
export function submitWith(submit: () => Promise<void>): (event: FormEvent) => void {
  return (event) => {
    event.preventDefault();
    void submit();
  };
}
