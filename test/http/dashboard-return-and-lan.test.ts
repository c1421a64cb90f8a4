// Sign-in returns to the page the reader came from (issue 37 §9), only ever to this server's own
// pages; and the development sign-in registers this machine's LAN addresses as well as
// localhost (§12), never another machine's.
import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/http/dashboard/index.js';
import { redirectUris } from '../../src/http/dashboard/dev-idp.js';
import { loadConfig } from '../../src/config.js';

describe('safeNext: where sign-in may return to', () => {
  it('keeps the explorer view and a profile, as same-origin paths', () => {
    const view = '/explore?variable=B19013_001E&dataset=acs1&vintage=2018&level=county&within=state%3A48&geo=state%3A48';
    expect(safeNext(view)).toBe(view);
    expect(safeNext('/profile/Travis%20County%2C%20TX?dataset=acs5&vintage=2023')).toBe(
      '/profile/Travis%20County%2C%20TX?dataset=acs5&vintage=2023',
    );
    expect(safeNext('/dashboard/keys')).toBe('/dashboard/keys');
  });
  it('refuses every other origin and every other path', () => {
    for (const bad of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example/explore',
      'javascript:alert(1)',
      '/explore@evil.example',
      '/v1/account',
      '/exploreX',
      ' /explore',
      '/explore\n',
      undefined,
      42,
    ])
      expect(safeNext(bad), String(bad)).toMatch(/^\/(dashboard|explore)/);
    expect(safeNext('//evil.example/x')).toBe('/dashboard');
    expect(safeNext('https://evil.example/explore')).toBe('/dashboard');
    expect(safeNext('/v1/account')).toBe('/dashboard');
    expect(safeNext('/exploreX')).toBe('/dashboard');
  });
});

describe('the development provider’s redirect URIs', () => {
  it('are localhost and this machine’s own addresses at the server’s port, nothing else', () => {
    const config = loadConfig({ NODE_ENV: 'test' }, { PORT: 8080 });
    const uris = redirectUris(config, 'http://localhost:8080/dev-idp', {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true } as never],
      eth0: [
        { address: '192.0.2.2', family: 'IPv4', internal: false } as never,
        { address: 'fd00::2', family: 'IPv6', internal: false } as never,
        { address: 'fe80::1', family: 'IPv6', internal: false } as never,
      ],
    });
    expect(uris).toContain('http://localhost:8080/dashboard/auth/callback');
    expect(uris).toContain('http://192.0.2.2:8080/dashboard/auth/callback');
    expect(uris).toContain('http://[fd00::2]:8080/dashboard/auth/callback');
    expect(uris.every((u) => u.endsWith(':8080/dashboard/auth/callback'))).toBe(true);
    expect(uris.some((u) => u.includes('fe80'))).toBe(false);
  });
});
