import { ChangePasswordForm } from '@/components/settings/change-password-form';
import { TokenCreateForm } from '@/components/settings/token-create-form';
import { TokenList } from '@/components/settings/token-list';
import { ModelStatusSection } from '@/components/models/model-status-section';
import { Card } from '@/components/ui/card';
import { getServerCaller, requireUser } from '@/trpc/server';
import { TitledSection } from '@/components/ui/titled-section';
import { RedactionSetting } from '@/components/settings/redaction-setting';
import Link from 'next/link';

export const metadata = { title: 'Settings · Entity Memory' };

export default async function SettingsPage() {
  await requireUser();
  const caller = await getServerCaller();
  const [tokens, prefs] = await Promise.all([caller.token.list(), caller.user.prefs()]);
  return (
    <div className="mx-auto max-w-3xl space-y-6 px-4 py-8">
      <h1 className="text-2xl font-semibold">Settings</h1>
      <Card>
        <ChangePasswordForm />
      </Card>
      <Card>
        <TitledSection id="tokens-title" title="API tokens" className="space-y-4">
          <p className="text-sm text-neutral-600 dark:text-neutral-400">
            Agents send a token as <code>Authorization: Bearer &lt;token&gt;</code>. A token can do everything you can, except manage tokens and
            administer users.
          </p>
          <TokenCreateForm />
          <TokenList initialTokens={tokens} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="privacy-title" title="Secrets">
          <RedactionSetting initial={prefs.redactSecrets} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="import-title" title="Import">
          <p className="text-sm text-neutral-600 dark:text-neutral-400">
            Bring in history from Claude Code, Codex or a ChatGPT export on the{' '}
            <Link href="/import" className="underline">
              Import page
            </Link>
            .
          </p>
        </TitledSection>
      </Card>
      <Card>
        <ModelStatusSection />
      </Card>
    </div>
  );
}
