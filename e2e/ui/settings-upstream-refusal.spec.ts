import { captureViews, expect, query, signInBrowser, test } from '../fixtures';

test('a refused upstream URL is said at its field, the field marked, and the stored URL unchanged', async ({ page, context, user, settingsPage }) => {
  await signInBrowser(context, user.api);
  await settingsPage.goto();
  const field = settingsPage.upstreamBaseUrl('openai');
  const before = await field.inputValue();
  // The proxy would call it from inside the server's network: refused (SSRF).
  await field.fill('http://169.254.169.254/latest');
  await settingsPage.saveUpstream('openai');
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(/^Not saved: Upstream refused: .+ The upstream still uses /);
  // The refusal is in the row, right under the field, not at the foot of the section.
  const row = settingsPage.upstream('openai');
  await expect(row.getByRole('alert')).toContainText(`The upstream still uses ${before}.`);
  const fieldBox = (await field.boundingBox())!;
  const alertBox = (await row.getByRole('alert').boundingBox())!;
  expect(alertBox.y - (fieldBox.y + fieldBox.height)).toBeLessThan(16);
  await row.scrollIntoViewIfNeeded();
  await captureViews(page, 'h31a-upstream-refused');
  const upstreams = await query<{ name: string; baseUrl: string }[]>(user.api, 'proxy.listUpstreams');
  expect(upstreams.data.find((upstream) => upstream.name === 'openai')?.baseUrl).toBe(before);
  // Typing again clears the mark.
  await field.fill(before);
  await expect(field).not.toHaveAttribute('aria-invalid', 'true');
  await expect(row.getByRole('alert')).toHaveCount(0);
});
