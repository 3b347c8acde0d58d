import { toast } from 'sonner';

/**
 * "Export as Markdown" as a checked download. The server refuses a Markdown export past its
 * limit (413, with a message naming the JSON export and the bundle instead); a plain download
 * link would leave only "Failed" in the browser's download list. So the export is asked for
 * with HEAD first (the server measures the document for it and answers as the GET would), the
 * refusal's words are shown, and only an accepted export is downloaded, streamed by the browser.
 */
export async function downloadMarkdown(url: string): Promise<void> {
  let head: Response;
  try {
    head = await fetch(url, { method: 'HEAD', credentials: 'same-origin' });
  } catch {
    toast.error('The Markdown export failed: the server could not be reached.');
    return;
  }
  if (head.ok) {
    const link = document.createElement('a');
    link.href = url;
    link.download = '';
    document.body.append(link);
    link.click();
    link.remove();
    return;
  }
  // A HEAD has no body: the refusal's message is the GET's (a short JSON, nothing streamed).
  let message = `the server answered ${head.status}`;
  try {
    const body = (await (await fetch(url, { credentials: 'same-origin' })).json()) as { error?: unknown };
    if (typeof body.error === 'string' && body.error) message = body.error;
  } catch {
    // keep the status
  }
  toast.error(`Not exported: ${message}`);
}
