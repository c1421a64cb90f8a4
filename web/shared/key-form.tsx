// The form a page shows when the reader is not signed in: an API key pasted here is kept in the
// page's memory only (never stored), or the reader signs in to the dashboard and comes back.
import { useState } from 'preact/hooks';
import { hasCredentials, useKey } from '../explore/api.js';

export function KeyForm({ title, lead, action, onReady }: { title: string; lead: string; action: string; onReady: () => void }) {
  const [keyInput, setKeyInput] = useState('');
  return (
    <main id="main" class="card">
      <h1>{title}</h1>
      <p class="lead">{lead}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          useKey(keyInput);
          if (hasCredentials()) onReady();
        }}
      >
        <label for="api-key">Your API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          value={keyInput}
          onInput={(e) => setKeyInput((e.target as HTMLInputElement).value)}
          aria-describedby="key-hint"
          required
        />
        <p id="key-hint" class="hint">
          Kept in this page’s memory only (gone when you close or reload it). Or{' '}
          {/* Sign-in returns here, to this page and view (the server accepts only its own pages' paths). */}
          <a href={`/dashboard/auth/login?next=${encodeURIComponent(location.pathname + location.search)}`}>sign in</a> and come back to
          this page.
        </p>
        <button type="submit" class="primary">
          {action}
        </button>
      </form>
    </main>
  );
}
