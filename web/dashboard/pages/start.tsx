// Getting started: a key, a first request in four languages, and MCP client settings.
import { useState } from 'preact/hooks';
import { api, describeError, type CreatedKey, type Key } from '../api.js';
import { CopyButton, KeyReveal, Notice, PageTitle, useLoad } from '../components.js';
import type { AppState } from '../app-state.js';

const EXAMPLE = 'variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018';

function snippets(base: string, key: string): Record<string, string> {
  const url = `${base}/v1/data?${EXAMPLE}`;
  return {
    curl: `curl -H "X-API-Key: ${key}" \\\n  "${url}"`,
    Python: `import requests

r = requests.get(
    "${base}/v1/data",
    params={"variables": "B19013_001E", "geo": "state:06", "dataset": "acs1", "vintage": 2018},
    headers={"X-API-Key": "${key}"},
)
r.raise_for_status()
row = r.json()["data"][0]
print(row)`,
    R: `library(httr2)

resp <- request("${base}/v1/data") |>
  req_url_query(variables = "B19013_001E", geo = "state:06", dataset = "acs1", vintage = 2018) |>
  req_headers(\`X-API-Key\` = "${key}") |>
  req_perform()
str(resp_body_json(resp)$data[[1]])`,
    JavaScript: `const res = await fetch("${url}", {
  headers: { "X-API-Key": "${key}" },
});
if (!res.ok) throw new Error(\`HTTP \${res.status}\`);
const { data } = await res.json();
console.log(data[0]);`,
  };
}

function mcpConfigs(mcpUrl: string, key: string): { client: string; where: string; text: string }[] {
  const headers = { Authorization: `Bearer ${key}` };
  return [
    {
      client: 'Claude Code',
      where: 'run in a terminal',
      text: `claude mcp add --transport http census ${mcpUrl} \\
  --header "Authorization: Bearer ${key}"`,
    },
    { client: 'Cursor', where: '~/.cursor/mcp.json', text: JSON.stringify({ mcpServers: { census: { url: mcpUrl, headers } } }, null, 2) },
    {
      client: 'VS Code',
      where: '.vscode/mcp.json',
      text: JSON.stringify({ servers: { census: { type: 'http', url: mcpUrl, headers } } }, null, 2),
    },
    {
      client: 'Claude Desktop',
      where: 'claude_desktop_config.json (through the mcp-remote bridge)',
      text: JSON.stringify(
        { mcpServers: { census: { command: 'npx', args: ['mcp-remote', mcpUrl, '--header', `Authorization: Bearer ${key}`] } } },
        null,
        2,
      ),
    },
  ];
}

export function StartPage({ session, profile, lastKey, setLastKey, navigate }: AppState) {
  const keys = useLoad(() => api<Key[]>('GET', '/v1/account/keys'));
  const [lang, setLang] = useState('curl');
  const [client, setClient] = useState('Claude Code');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const active = (keys.data?.data ?? []).filter((k) => k.status === 'active');
  const key = lastKey?.key ?? 'YOUR_API_KEY';
  const code = snippets(session.api_base_url, key);
  const mcp = mcpConfigs(session.mcp_url, key);
  const chosen = mcp.find((m) => m.client === client) ?? mcp[0]!;
  const blocked = session.invite_required && !profile.activated;

  const createFirst = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setLastKey((await api<CreatedKey>('POST', '/v1/account/keys', { name: 'My first key' })).data);
      keys.reload();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageTitle>Getting started</PageTitle>
      <ol class="steps">
        <li>
          <h2>Get an API key</h2>
          {lastKey ? (
            <KeyReveal created={lastKey} onDismiss={() => setLastKey(null)} />
          ) : (
            <>
              <p>
                {active.length === 0
                  ? 'You have no API key yet.'
                  : `You have ${active.length} active key${active.length > 1 ? 's' : ''}. Keys are shown only once, when created — the examples below use a placeholder; replace YOUR_API_KEY with your key.`}
              </p>
              {error && <Notice kind="error">{error}</Notice>}
              <p class="actions-row">
                <button type="button" class="primary" onClick={createFirst} disabled={busy || blocked}>
                  {active.length === 0 ? 'Create my first key' : 'Create another key'}
                </button>
                <a href="/dashboard/keys" onClick={(e) => (e.preventDefault(), navigate('keys'))}>
                  Manage keys
                </a>
              </p>
            </>
          )}
        </li>
        <li>
          <h2>Make your first request</h2>
          <p>California’s median household income in 2018, with its margin of error:</p>
          <div class="segmented" role="group" aria-label="Language">
            {Object.keys(code).map((l) => (
              <button type="button" key={l} aria-pressed={lang === l} onClick={() => setLang(l)}>
                {l}
              </button>
            ))}
          </div>
          <div class="code">
            <pre tabIndex={0} aria-label={`${lang} example`} data-testid="snippet">
              <code>{code[lang]}</code>
            </pre>
            <CopyButton text={code[lang]!} label={`Copy ${lang}`} />
          </div>
          <p class="hint">
            The answer’s <code>estimate</code> is 75277 and <code>moe_numeric</code> 317. More in the <a href="/docs">API reference</a>.
          </p>
          <p class="hint" data-testid="pages-links">
            The same figures in pages, signed in as you: a place’s profile (every topic beside its state and the nation), e.g.{' '}
            <a href="/profile/state:06">California</a>, and the <a href="/explore">explorer</a> (maps, tables, series).
          </p>
        </li>
        <li>
          <h2>Connect an AI assistant (MCP)</h2>
          <p>
            MCP server address: <code data-testid="mcp-url">{session.mcp_url}</code> (streamable HTTP, key as{' '}
            <code>Authorization: Bearer</code>).
          </p>
          {profile.plan.features.mcp !== true && (
            <Notice kind="info">
              MCP access needs the Pioneer plan or above. <a href="/dashboard/billing?plan=pioneer">Compare plans</a>
            </Notice>
          )}
          <div class="segmented" role="group" aria-label="MCP client">
            {mcp.map((m) => (
              <button type="button" key={m.client} aria-pressed={client === m.client} onClick={() => setClient(m.client)}>
                {m.client}
              </button>
            ))}
          </div>
          <p class="hint">{chosen.where}</p>
          <div class="code">
            <pre tabIndex={0} aria-label={`${chosen.client} settings`}>
              <code>{chosen.text}</code>
            </pre>
            <CopyButton text={chosen.text} label={`Copy ${chosen.client} settings`} />
          </div>
        </li>
      </ol>
    </>
  );
}
