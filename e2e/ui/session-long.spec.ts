import { captureViews, createSession, createToken, bearer, expect, query, signInBrowser, test, type BranchMessage } from '../fixtures';
import { SessionPage } from '../pages/session';

const COUNT = 10_000;
const PAGE = 50;

test('a 10,000-message session opens on its newest part and loads older messages on scroll, keeping the place', async ({ user, page, context }) => {
  test.setTimeout(300_000);
  const { token } = await createToken(user.api, 'seeder');
  await createSession(user.api, { id: 'huge', title: 'Ten thousand messages' });
  // An agent writes through the API with its token: tRPC batches of 100 appends, 4 batches at a
  // time. An omitted parent is the head and the store serialises appends to a session, so the
  // branch stays one line whatever order they land in.
  const BATCH = 100;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < COUNT) {
        const start = next;
        next += BATCH;
        const inputs = Object.fromEntries(
          Array.from({ length: BATCH }, (_, k) => [k, { sessionId: 'huge', message: { role: (start + k) % 2 ? 'assistant' : 'user', content: `Message number ${start + k}` } }]),
        );
        const response = await user.api.post(`/api/trpc/${Array(BATCH).fill('message.append').join(',')}?batch=1`, {
          headers: { 'content-type': 'application/json', ...bearer(token) },
          data: JSON.stringify(inputs),
        });
        expect(response.status(), await response.text()).toBe(200);
      }
    }),
  );
  const branch = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'huge' })).data;
  expect(branch).toHaveLength(COUNT);
  const ids = branch.map((m) => m.id);

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto('huge');
  await expect(session.title).toHaveText('Ten thousand messages');
  // The newest page, scrolled to its end.
  expect(await session.messageIds()).toEqual(ids.slice(-PAGE));
  await expect(session.messageById(ids[COUNT - 1]!)).toBeInViewport();
  await captureViews(page, 'session-long');

  // Scrolling up loads the page before, and what was at the top stays in view.
  const firstShown = ids[COUNT - PAGE]!;
  await session.messageById(firstShown).scrollIntoViewIfNeeded();
  await page.mouse.wheel(0, -2000);
  await expect.poll(() => session.messageIds().then((shown) => shown.length)).toBe(2 * PAGE);
  expect(await session.messageIds()).toEqual(ids.slice(-2 * PAGE));
  await expect(session.messageById(firstShown)).toBeInViewport();
  await expect(session.messageById(ids[COUNT - 2 * PAGE]!)).not.toBeInViewport();

  // And again, page by page.
  for (let pages = 3; pages <= 4; pages++) {
    await session.messages.first().scrollIntoViewIfNeeded();
    await page.mouse.wheel(0, -2000);
    await expect.poll(() => session.messageIds().then((shown) => shown.length)).toBe(pages * PAGE);
  }
  expect(await session.messageIds()).toEqual(ids.slice(-4 * PAGE));
});
