// What main.tsx hands every page: the session, the profile and the app's navigation. Its own file
// so the pages and main.tsx (which imports the pages) both import it from here.
import type { CreatedKey, Profile, Session } from './api.js';

export interface AppState {
  session: Session;
  profile: Profile;
  reloadProfile: () => Promise<void>;
  /** A key created or rotated in this tab, kept in memory so Getting started can fill it in. */
  lastKey: CreatedKey | null;
  setLastKey: (k: CreatedKey | null) => void;
  navigate: (path: string) => void;
}
