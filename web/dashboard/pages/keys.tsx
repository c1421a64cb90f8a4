// API keys: list, create (shown once), rename, rotate (new key shown once, old one dead at once),
// revoke (after confirmation).
import { useState } from 'preact/hooks';
import { api, describeError, type CreatedKey, type Key } from '../api.js';
import { Dialog, KeyReveal, Notice, PageTitle, useLoad } from '../components.js';
import { date } from '../format.js';
import type { AppState } from '../app-state.js';

type Pending = { kind: 'rename' | 'rotate' | 'revoke'; key: Key } | null;

export function KeysPage({ profile, lastKey, setLastKey }: AppState) {
  const { data, error, reload } = useLoad(() => api<Key[]>('GET', '/v1/account/keys'));
  const [name, setName] = useState('');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string }>();
  const [pending, setPending] = useState<Pending>(null);
  const [newName, setNewName] = useState('');
  const [revealTitle, setRevealTitle] = useState('Your new API key');

  const act = async (f: () => Promise<void>) => {
    setMessage(undefined);
    try {
      await f();
    } catch (e) {
      setMessage({ kind: 'error', text: describeError(e) });
    }
    reload();
  };
  const create = (e: Event) => {
    e.preventDefault();
    return act(async () => {
      const r = await api<CreatedKey>('POST', '/v1/account/keys', { name });
      setRevealTitle('Your new API key');
      setLastKey(r.data);
      setName('');
    });
  };
  const confirm = () => {
    const p = pending;
    setPending(null);
    if (!p) return;
    return act(async () => {
      if (p.kind === 'rename') {
        await api('PATCH', `/v1/account/keys/${p.key.id}`, { name: newName });
        setMessage({ kind: 'success', text: `Renamed to “${newName.trim()}”.` });
      } else if (p.kind === 'rotate') {
        const r = await api<{ key: CreatedKey; revoked: Key }>('POST', `/v1/account/keys/${p.key.id}/rotate`);
        setRevealTitle('Replacement key');
        setLastKey(r.data.key);
        setMessage({ kind: 'success', text: `The old key ${p.key.prefix} stopped working. Its replacement is shown below, once.` });
      } else {
        await api('DELETE', `/v1/account/keys/${p.key.id}`);
        if (lastKey?.id === p.key.id) setLastKey(null);
        setMessage({ kind: 'success', text: `Key “${p.key.name}” (${p.key.prefix}) is revoked. Requests with it now answer 401.` });
      }
    });
  };

  const keys = data?.data ?? [];
  const meta = data?.meta as { active_count?: number; key_limit?: number } | undefined;
  const atLimit = meta?.active_count !== undefined && meta.key_limit !== undefined && meta.active_count >= meta.key_limit;
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p class="lead">
        Send a key in the <code>X-API-Key</code> header (or <code>Authorization: Bearer</code> for MCP). Your {profile.plan.name} plan
        allows {meta?.key_limit ?? '…'} active keys
        {meta?.active_count !== undefined ? `; you have ${meta.active_count}.` : '.'}
      </p>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {lastKey && <KeyReveal created={lastKey} title={revealTitle} onDismiss={() => setLastKey(null)} />}
      <section aria-labelledby="create-title" class="panel">
        <h2 id="create-title">Create a key</h2>
        <form onSubmit={create} class="inline">
          <label for="key-name">Key name</label>
          <input
            id="key-name"
            value={name}
            maxLength={100}
            required
            placeholder="e.g. newsroom laptop"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
            aria-describedby="key-name-hint"
          />
          <button type="submit" class="primary" disabled={atLimit}>
            Create key
          </button>
        </form>
        <p id="key-name-hint" class="hint">
          {atLimit
            ? 'You have reached your plan’s number of active keys: revoke one or upgrade.'
            : 'A name tells keys apart, e.g. one per app or machine.'}
        </p>
      </section>
      <section aria-labelledby="list-title">
        <h2 id="list-title">Your keys</h2>
        {error && <Notice kind="error">{error}</Notice>}
        {data && keys.length === 0 && <p>No keys yet. Create one above.</p>}
        {keys.length > 0 && (
          <div class="table-wrap">
            <table data-testid="keys-table" class="stack">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((k) => (
                  <tr key={k.id} data-key-id={k.id}>
                    <th scope="row">{k.name}</th>
                    <td class="mono" data-label="Key">
                      {k.prefix}
                    </td>
                    <td data-label="Created">{date(k.created_at)}</td>
                    <td data-label="Last used">{date(k.last_used_at, true)}</td>
                    <td data-label="Status">
                      <span class={`status ${k.status}`}>{k.status === 'active' ? 'Active' : `Revoked ${date(k.revoked_at)}`}</span>
                    </td>
                    <td class="actions">
                      {k.status === 'active' && (
                        <>
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`Rename ${k.name}`}
                            onClick={() => (setNewName(k.name), setPending({ kind: 'rename', key: k }))}
                          >
                            Rename
                          </button>
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`Rotate ${k.name}`}
                            onClick={() => setPending({ kind: 'rotate', key: k })}
                          >
                            Rotate
                          </button>
                          <button
                            type="button"
                            class="danger small"
                            aria-label={`Revoke ${k.name}`}
                            onClick={() => setPending({ kind: 'revoke', key: k })}
                          >
                            Revoke
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <Dialog open={pending?.kind === 'rename'} title={`Rename “${pending?.key.name ?? ''}”`} onClose={() => setPending(null)}>
        <form onSubmit={(e) => (e.preventDefault(), confirm())}>
          <label for="rename-input">New name</label>
          <input
            id="rename-input"
            value={newName}
            required
            maxLength={100}
            onInput={(e) => setNewName((e.target as HTMLInputElement).value)}
          />
          <div class="buttons">
            <button type="button" class="secondary" onClick={() => setPending(null)}>
              Cancel
            </button>
            <button type="submit" class="primary">
              Save name
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog open={pending?.kind === 'rotate'} title={`Rotate “${pending?.key.name ?? ''}”?`} onClose={() => setPending(null)}>
        <p>
          The key <span class="mono">{pending?.key.prefix}</span> stops working <strong>immediately</strong>, and a new key with the same
          name is shown once. Update every program that uses it.
        </p>
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setPending(null)}>
            Cancel
          </button>
          <button type="button" class="primary" onClick={confirm}>
            Rotate key
          </button>
        </div>
      </Dialog>
      <Dialog open={pending?.kind === 'revoke'} title={`Revoke “${pending?.key.name ?? ''}”?`} onClose={() => setPending(null)}>
        <p>
          Requests with <span class="mono">{pending?.key.prefix}</span> will be refused (401) from now on. This cannot be undone.
        </p>
        <div class="buttons">
          <button type="button" class="secondary" onClick={() => setPending(null)}>
            Cancel
          </button>
          <button type="button" class="danger" onClick={confirm}>
            Revoke key
          </button>
        </div>
      </Dialog>
    </>
  );
}
