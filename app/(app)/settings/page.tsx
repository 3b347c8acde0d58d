import { ChangePasswordForm } from '@/components/settings/change-password-form';
import { TokenCreateForm } from '@/components/settings/token-create-form';
import { TokenList } from '@/components/settings/token-list';
import { ModelStatusSection } from '@/components/models/model-status-section';
import { Card } from '@/components/ui/card';
import { getServerCaller, requireUser } from '@/trpc/server';
import { TitledSection } from '@/components/ui/titled-section';
import { RedactionSetting } from '@/components/settings/redaction-setting';
import { TitleSetting } from '@/components/settings/title-setting';
import Link from 'next/link';
import { headers } from 'next/headers';
import { ConnectAgent } from '@/components/connect/connect-agent';
import { UpstreamList } from '@/components/connect/upstream-list';
import { ShareList } from '@/components/share/share-list';
import { ActivitySection } from './activity-section';
import { RetentionSetting } from '@/components/retention/retention-setting';

export const metadata = { title: 'Settings · Entity Memory' };

export default async function SettingsPage() {
  await requireUser();
  const caller = await getServerCaller();
  const [tokens, prefs, upstreams, lastExchanges, shares] = await Promise.all([caller.token.list(), caller.user.prefs(), caller.proxy.listUpstreams(), caller.proxy.lastExchanges(), caller.share.list()]);
  const retention = await caller.retention.settings();
  // The first paint's origin; the browser's own replaces it once mounted.
  const requestHeaders = await headers();
  const host = requestHeaders.get('x-forwarded-host') ?? requestHeaders.get('host') ?? 'localhost:3000';
  const origin = `${requestHeaders.get('x-forwarded-proto') ?? 'http'}://${host}`;
  return (
    <div className="mx-auto max-w-3xl space-y-6 px-4 py-8">
      <h1 className="text-2xl font-semibold">Settings</h1>
      <Card>
        <ChangePasswordForm />
      </Card>
      <Card>
        <TitledSection id="tokens-title" title="API tokens" className="space-y-4">
          <p className="text-sm text-neutral-600 dark:text-neutral-400">
            Agents send a token as <code>Authorization: Bearer &lt;token&gt;</code>. A token does what its scopes allow, in one
            project if you choose one; none can manage tokens or administer users.
          </p>
          <TokenCreateForm />
          <TokenList initialTokens={tokens} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="connect-title" title="Connect an agent" className="space-y-4">
          <ConnectAgent serverOrigin={origin} initialLast={lastExchanges} initialUpstreams={upstreams} />
          <h3 className="pt-2 text-base font-semibold">Upstreams and provider keys</h3>
          <p className="text-sm text-neutral-600 dark:text-neutral-400">
            With a token as the agent&apos;s API key, the proxy calls the provider with the key stored here. Keys are kept in the server&apos;s auth
            folder, never in git or a log, and never shown again.
          </p>
          <UpstreamList initial={upstreams} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="share-links-title" title="Share links">
          <ShareList initial={shares} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="privacy-title" title="Secrets">
          <RedactionSetting initial={prefs.redactSecrets} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="titles-title" title="Titles">
          <TitleSetting initial={prefs.titleAgentSessions} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="retention-title" title="Retention">
          <RetentionSetting initial={retention} />
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
      <Card>
        <ActivitySection />
      </Card>
    </div>
  );
}
