import { nowSeconds, secondsToMs } from '../time.js';
import { perStore, type OrganiseStore } from './organise-store.js';
import { ViewFile, type SavedView, type ViewFilter } from './saved-views.js';

/** A saved view as view.list answers it: its filter and how many sessions it matches now. */
export interface ViewSummary {
  name: string;
  filter: ViewFilter;
  /** ms */
  createdAt: number;
  sessions: number;
}

/** DESIGN §16: one user's saved Chats filters (`users/<id>/views.json`), each with its live count. */
export class UserViews {
  private readonly file: ViewFile;

  constructor(private readonly store: OrganiseStore, private readonly now: () => number = nowSeconds) {
    this.file = new ViewFile(store.stateDir);
  }

  private summary(view: SavedView): ViewSummary {
    // A count over the registry with session.list's own filter: no row is built.
    return { name: view.name, filter: view.filter, createdAt: secondsToMs(view.createdAt), sessions: this.store.countSessions(view.filter) };
  }

  /** By name. */
  list(): ViewSummary[] {
    return this.file.list().map((view) => this.summary(view));
  }

  /** A new view; INVALID for a bad name or filter, CONFLICT for a name in use; nothing written then. */
  save(name: unknown, filter: unknown): ViewSummary {
    const view = this.file.add(name, filter, this.now());
    this.store.events.emit('view_changed', { name: view.name, saved: true });
    return this.summary(view);
  }

  delete(name: unknown): { name: string } {
    const view = this.file.delete(name);
    this.store.events.emit('view_changed', { name: view.name, saved: false });
    return { name: view.name };
  }
}

export const viewsOf = perStore((store) => new UserViews(store));
