// The developer dashboard: a small single-page app served at /dashboard by the API server itself.
// Routing is by path (/dashboard/keys …) so every page has a shareable address; the server
// answers every /dashboard/* path with the same shell.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, describeError, loadSession, signOut, whenSignedOut, type CreatedKey, type Profile, type Session } from './api.js';
import type { AppState } from './app-state.js';
import { Notice, PageTitle } from './components.js';
import { date, daysUntil } from './format.js';
import { BillingPage } from './pages/billing.js';
import { KeysPage } from './pages/keys.js';
import { ProfilePage } from './pages/profile.js';
import { StartPage } from './pages/start.js';
import { UsagePage } from './pages/usage.js';

const NAV = [
  { path: '', label: 'Getting started' },
  { path: 'keys', label: 'API keys' },
  { path: 'usage', label: 'Usage' },
  { path: 'billing', label: 'Plan & billing' },
  { path: 'profile', label: 'Profile' },
] as const;

const routeOf = () => location.pathname.replace(/^\/dashboard\/?/, '').replace(/\/$/, '');

function navigateTo(path: string) {
  history.pushState(null, '', `/dashboard${path ? `/${path}` : ''}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** Same-origin dashboard links navigate without a page load. */
function onLinkClick(e: MouseEvent) {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/dashboard') || url.pathname.startsWith('/dashboard/auth')) return;
  e.preventDefault();
  history.pushState(null, '', url.pathname + url.search);
  dispatchEvent(new PopStateEvent('popstate'));
}

function SignedOut({ session, message }: { session: Session; message?: string }) {
  const next = encodeURIComponent(location.pathname + location.search);
  return (
    <main id="main" class="signin card">
      <PageTitle>Census Data Service</PageTitle>
      <p class="lead">
        American Community Survey estimates with their margins of error, over an HTTP API and an MCP server. Sign in to create an API key.
      </p>
      {message && <Notice kind="info">{message}</Notice>}
      {session.sign_in === 'none' ? (
        <Notice kind="warning">
          Sign-in is not configured on this server. The operator sets <code>OIDC_ISSUER</code> and <code>OIDC_CLIENT_ID</code> (see
          docs/dashboard.md).
        </Notice>
      ) : (
        <>
          <a class="button primary big" href={`/dashboard/auth/login?next=${next}`}>
            Sign in
          </a>
          {session.sign_in === 'dev' && <p class="hint">Development sign-in: you will be asked for an e-mail address only.</p>}
          <p class="hint">First sign-in creates a free account (1,000 units a month).</p>
        </>
      )}
    </main>
  );
}

function TosBanner({ profile, reload }: { profile: Profile; reload: () => Promise<void> }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const tos = profile.tos;
  if (tos.status !== 'grace' && tos.status !== 'required') return null;
  const accept = async () => {
    setBusy(true);
    try {
      await api('POST', '/v1/account/accept-tos', { version: tos.current_version });
      await reload();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  const doc = tos.url ? (
    <a href={tos.url} target="_blank" rel="noopener">
      terms of service (version {tos.current_version})
    </a>
  ) : (
    <>terms of service (version {tos.current_version})</>
  );
  return (
    <section class={`notice ${tos.status === 'required' ? 'error' : 'warning'} tos`} aria-labelledby="tos-title" data-testid="tos-banner">
      <h2 id="tos-title">Accept the terms of service</h2>
      {tos.status === 'grace' ? (
        <p>
          Please read and accept the {doc}. Your API keys keep working during the grace period, which ends on{' '}
          <strong>{date(tos.grace_ends_at)}</strong> ({daysUntil(tos.grace_ends_at!)} days left).
        </p>
      ) : (
        <p>The grace period has ended: API requests answer 403 until you accept the {doc}.</p>
      )}
      {error && <p class="error">{error}</p>}
      <button type="button" class="primary" onClick={accept} disabled={busy}>
        I accept the terms of service
      </button>
    </section>
  );
}

function InviteBanner({ reload }: { reload: () => Promise<void> }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api('POST', '/v1/account/activate', { code });
      await reload();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <section class="notice info" aria-labelledby="invite-title" data-testid="invite-banner">
      <h2 id="invite-title">Private beta: enter your invite code</h2>
      <p>You can create API keys once your account is activated with an invite code.</p>
      <form onSubmit={submit} class="inline">
        <label for="invite-code">Invite code</label>
        <input
          id="invite-code"
          value={code}
          onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          placeholder="XXXX-XXXX-XXXX"
          required
          autoComplete="off"
          aria-describedby={error ? 'invite-error' : undefined}
        />
        <button type="submit" class="primary">
          Activate
        </button>
      </form>
      {error && (
        <p id="invite-error" class="error">
          {error}
        </p>
      )}
    </section>
  );
}

function App() {
  const [session, setSession] = useState<Session>();
  const [profile, setProfile] = useState<Profile>();
  const [fatal, setFatal] = useState<string>();
  const [route, setRoute] = useState(routeOf());
  const [lastKey, setLastKey] = useState<CreatedKey | null>(null);
  const [signedOutMessage, setSignedOutMessage] = useState<string>();

  const reloadProfile = async () => setProfile((await api<Profile>('GET', '/v1/account')).data);

  useEffect(() => {
    whenSignedOut(() => {
      setProfile(undefined);
      setSession((s) => (s ? { ...s, signed_in: false } : s));
      setSignedOutMessage('Your session has ended. Sign in again to continue.');
    });
    loadSession()
      .then(async (s) => {
        setSession(s);
        if (s.signed_in) await reloadProfile();
      })
      .catch((e: unknown) => setFatal(describeError(e)));
    const onPop = () => setRoute(routeOf());
    addEventListener('popstate', onPop);
    document.addEventListener('click', onLinkClick);
    return () => {
      removeEventListener('popstate', onPop);
      document.removeEventListener('click', onLinkClick);
    };
  }, []);

  const page = NAV.find((n) => n.path === route.split('/')[0]) ?? NAV[0];
  useEffect(() => {
    document.title = `${page.label} · Census Data Service dashboard`;
    // Move focus to the new page's title (not on first load), so screen readers announce it.
    if (document.activeElement && document.activeElement !== document.body) document.getElementById('page-title')?.focus();
  }, [route, profile === undefined]);

  if (fatal)
    return (
      <main id="main" class="card">
        <Notice kind="error">{fatal}</Notice>
      </main>
    );
  if (!session)
    return (
      <main id="main" class="card" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (!session.signed_in) return <SignedOut session={session} message={signedOutMessage} />;
  if (!profile)
    return (
      <main id="main" class="card" aria-busy="true">
        <p>Loading your account…</p>
      </main>
    );

  const state: AppState = { session, profile, reloadProfile, lastKey, setLastKey, navigate: navigateTo };
  const doSignOut = async () => {
    await signOut();
    setProfile(undefined);
    setLastKey(null);
    setSession({ ...session, signed_in: false });
    setSignedOutMessage('You are signed out.');
  };
  const needsInvite = session.invite_required && !profile.activated;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <a href="/dashboard">Census Data Service</a>
          <span class="plan-badge" data-testid="plan-badge">
            {profile.plan.name} plan
          </span>
        </div>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map((n) => (
              <li key={n.path}>
                <a href={`/dashboard${n.path ? `/${n.path}` : ''}`} aria-current={n === page ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="email">{profile.email}</span>
          <button type="button" class="secondary" onClick={doSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {needsInvite && <InviteBanner reload={reloadProfile} />}
        <TosBanner profile={profile} reload={reloadProfile} />
        {page.path === '' && <StartPage {...state} />}
        {page.path === 'keys' && <KeysPage {...state} />}
        {page.path === 'usage' && <UsagePage {...state} />}
        {page.path === 'billing' && <BillingPage {...state} />}
        {page.path === 'profile' && (
          <ProfilePage
            {...state}
            onDeleted={() => {
              setProfile(undefined);
              setSession({ ...session, signed_in: false });
              setSignedOutMessage('Your account was deleted. Its keys stopped working; its data is purged after 30 days.');
            }}
          />
        )}
      </main>
      <footer>
        <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/health">Service status</a>
      </footer>
    </>
  );
}

render(<App />, document.getElementById('app')!);
