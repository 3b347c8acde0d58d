import { LRUCache } from 'lru-cache';

/**
 * Views of a session at a commit already read, by repo, HEAD and commit (sessionAt's). The view
 * of a commit is fixed by its sha, except which turn follows it and whether it is on HEAD's line:
 * both are fixed by HEAD too, so a view read at one HEAD holds until the next turn commit. A
 * shared page read again and again (two share links, issue 27 item 4) then forks no git process
 * per visit: each read forked rev-list and cat-file on the request thread. Bounded by what the
 * views hold (`sizeOf`), so a few long sessions cannot pin much memory. Entries are shared by
 * every caller: read them, do not change them.
 */
export class ViewsAtHead<V extends object> {
  private readonly views: LRUCache<string, V>;

  constructor(sizeOf: (view: V) => number, maxBytes = 64 * 1024 * 1024) {
    this.views = new LRUCache<string, V>({ max: 32, maxSize: maxBytes, sizeCalculation: (view) => Math.max(1, sizeOf(view)) });
  }

  /** The view of `sha` as read at `head` of the repo in `dir`, read with `read` the first time; with no HEAD (a repo being made), read each time. */
  async get(dir: string, head: string | null, sha: string, read: () => Promise<V>): Promise<V> {
    if (head === null) return read();
    const key = `${dir}\0${head}\0${sha}`;
    const known = this.views.get(key);
    if (known) return known;
    const view = await read();
    this.views.set(key, view);
    return view;
  }
}
