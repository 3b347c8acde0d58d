/** POST /api/attachments for one file of a session: `{id, name, size, mime}`, or an Error with the server's message. */
export interface UploadedAttachment {
  id: string;
  name: string;
  size: number;
  mime: string;
}

export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

export async function uploadAttachment(sessionId: string, file: File): Promise<UploadedAttachment> {
  const form = new FormData();
  form.set('sessionId', sessionId);
  form.set('file', file, file.name);
  const response = await fetch('/api/attachments', { method: 'POST', body: form });
  const body = (await response.json().catch(() => ({}))) as Partial<UploadedAttachment> & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `the upload of ${file.name} failed (${response.status})`);
  return body as UploadedAttachment;
}
