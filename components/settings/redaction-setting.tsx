'use client';

import { PrefSwitch } from './pref-switch';

/** The per-user redaction switch (DESIGN §10): saved as soon as it changes. */
export function RedactionSetting({ initial }: { initial: boolean }) {
  return (
    <PrefSwitch
      pref="redactSecrets"
      initial={initial}
      label="Redact secrets from messages and imports"
      saved={{ on: 'Secrets are redacted from now on.', off: 'Redaction is off: messages are stored as written.' }}
    >
      API keys and tokens (OpenAI, Anthropic, GitHub, AWS, Google, Slack, Stripe…), JWTs, private keys and Authorization values become{' '}
      <code>[REDACTED:kind]</code> before anything is written. A secret written to git stays there for good.
    </PrefSwitch>
  );
}
