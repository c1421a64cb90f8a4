// Profile: name and organization; account deletion behind a typed confirmation.
import { useState } from 'preact/hooks';
import { api, describeError, signOut } from '../api.js';
import { Dialog, Notice, PageTitle } from '../components.js';
import { date } from '../format.js';
import type { AppState } from '../app-state.js';

export function ProfilePage({ profile, reloadProfile, onDeleted }: AppState & { onDeleted: () => void }) {
  const [name, setName] = useState(profile.name ?? '');
  const [org, setOrg] = useState(profile.organization ?? '');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const [deleteError, setDeleteError] = useState<string>();

  const save = async (e: Event) => {
    e.preventDefault();
    try {
      await api('PATCH', '/v1/account', { name: name.trim() || null, organization: org.trim() || null });
      await reloadProfile();
      setMessage({ kind: 'success', text: 'Profile saved.' });
    } catch (err) {
      setMessage({ kind: 'error', text: describeError(err) });
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', '/v1/account', { confirm: true });
      await signOut().catch(() => {});
      setConfirming(false);
      onDeleted();
    } catch (err) {
      setDeleteError(describeError(err));
    }
  };
  return (
    <>
      <PageTitle>Profile</PageTitle>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <section class="panel" aria-labelledby="details-title">
        <h2 id="details-title">Your details</h2>
        <form onSubmit={save} class="stack">
          <div>
            <label for="email">E-mail</label>
            <input id="email" value={profile.email ?? ''} readOnly aria-describedby="email-hint" />
            <p id="email-hint" class="hint">
              From your sign-in provider. Account created {date(profile.created_at)}.
            </p>
          </div>
          <div>
            <label for="name">Name</label>
            <input
              id="name"
              value={name}
              maxLength={200}
              autoComplete="name"
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          </div>
          <div>
            <label for="org">Organization</label>
            <input
              id="org"
              value={org}
              maxLength={200}
              autoComplete="organization"
              onInput={(e) => setOrg((e.target as HTMLInputElement).value)}
            />
          </div>
          <div>
            <button type="submit" class="primary">
              Save profile
            </button>
          </div>
        </form>
      </section>
      <section class="panel danger-zone" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete account</h2>
        <p>
          All your keys stop working at once. Your account, keys and usage records are purged after 30 days. Cancel any paid subscription in
          the billing portal first.
        </p>
        <button type="button" class="danger" onClick={() => (setTyped(''), setDeleteError(undefined), setConfirming(true))}>
          Delete my account…
        </button>
      </section>
      <Dialog open={confirming} title="Delete your account?" onClose={() => setConfirming(false)}>
        <form onSubmit={(e) => (e.preventDefault(), typed === 'DELETE' && remove())}>
          <p>This cannot be undone from the dashboard. Type DELETE to confirm.</p>
          <label for="confirm-delete">Confirmation</label>
          <input id="confirm-delete" value={typed} autoComplete="off" onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
          {deleteError && <p class="error">{deleteError}</p>}
          <div class="buttons">
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            <button type="submit" class="danger" disabled={typed !== 'DELETE'}>
              Delete account
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
