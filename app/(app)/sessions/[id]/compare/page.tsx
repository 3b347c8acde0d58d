import { TRPCError } from '@trpc/server';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { CompareProject } from '@/components/compare/compare-project';
import { CompareRows } from '@/components/compare/compare-rows';
import { MarkdownBody } from '@/components/markdown/markdown-body';
import { PlainTextBody } from '@/components/markdown/plain-text-body';
import { TitledSection } from '@/components/ui/titled-section';
import { renderMarkdown } from '@/server/render/markdown';
import { getServerCaller, requireUser } from '@/trpc/server';
import { orNotFound } from '../timeline/or-not-found';

export const metadata = { title: 'Compare branches · Entity Memory' };

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : '');

/**
 * `/sessions/<id>/compare?a=&b=` (DESIGN §14): two branches from their common message (once, folded),
 * their messages side by side with the words each has alone marked, then each one's project changes.
 */
export default async function ComparePage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireUser();
  const { id } = await params;
  const query = await searchParams;
  const api = await getServerCaller();
  const session = await orNotFound(api.session.get({ id }));
  const sessionHref = `/sessions/${encodeURIComponent(id)}`;
  let refusal: string | null = null;
  let comparison = null;
  try {
    comparison = await api.session.compare({ sessionId: id, a: one(query.a), b: one(query.b) });
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    if (error.code === 'NOT_FOUND') notFound();
    if (error.code !== 'BAD_REQUEST') throw error;
    refusal = error.message;
  }
  const ancestor = comparison?.ancestor ?? null;
  const ancestorBody = ancestor ? await renderMarkdown(ancestor.content, user.id) : null;
  return (
    <div className="mx-auto max-w-6xl space-y-6 px-4 py-6">
      <header className="space-y-1">
        <p className="text-sm">
          <Link href={sessionHref} className="text-blue-600 hover:underline dark:text-blue-400">
            ← {session.title || session.preview || 'Untitled'}
          </Link>
        </p>
        <h1 className="text-2xl font-semibold">Compare branches</h1>
        <p className="text-sm text-neutral-600 dark:text-neutral-400">
          Words only branch A has are <del className="bg-red-100 text-red-900 dark:bg-red-950/60 dark:text-red-200">struck through</del>, words only branch B has are{' '}
          <ins className="bg-emerald-100 text-emerald-900 underline underline-offset-2 dark:bg-emerald-950/60 dark:text-emerald-200">underlined</ins>.
        </p>
      </header>
      {refusal !== null || !comparison ? (
        <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
          Cannot compare: {refusal}. Pick two branches with “Compare with…” on a message with other versions or under the branch graph of the{' '}
          <Link href={`${sessionHref}/timeline`} className="underline">timeline</Link>.
        </p>
      ) : (
        <>
          {ancestor && ancestorBody ? (
            <details className="rounded-md border border-neutral-200 bg-neutral-50 p-3 text-sm dark:border-neutral-800 dark:bg-neutral-900">
              <summary className="cursor-pointer font-medium">Common message ({ancestor.role === 'user' ? 'you' : ancestor.role}): where the branches part</summary>
              <div className="mt-2">{'html' in ancestorBody ? <MarkdownBody html={ancestorBody.html} /> : <PlainTextBody text={ancestorBody.text} reason={ancestorBody.plain} />}</div>
            </details>
          ) : (
            <p className="text-sm text-neutral-600 dark:text-neutral-400">The two branches share no message: they start with different first messages.</p>
          )}
          <TitledSection id="compare-messages-title" title="Messages">
            <CompareRows rows={comparison.rows} />
          </TitledSection>
          <TitledSection id="compare-project-title" title="Project changes">
            <CompareProject project={comparison.project} />
          </TitledSection>
        </>
      )}
    </div>
  );
}
