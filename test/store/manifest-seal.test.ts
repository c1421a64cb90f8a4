// The manifest's seal (manifest_sha256, src/store/data-dir.ts): every other file of a build is
// checked against the manifest, so every byte of the manifest itself must be covered, including
// changes that keep it valid JSON of the same size.
import { describe, expect, it } from 'vitest';
import { ManifestInvalid, parseManifest, sealManifest, type Manifest } from '../../src/store/data-dir.js';

const manifest: Manifest = {
  build_id: '2026-11-29-080133-3857c0',
  created_at: '2026-11-29T08:01:33.123Z',
  synthetic: false,
  source: { dir: '/src', mode: 'local' },
  steps: {
    observations: {
      version: 3,
      inputs: {},
      outputs: ['observations'],
      rows: { 'acs1/2012/state': 1099807 },
      notes: [],
      seconds: 1,
      reused: false,
    },
  },
  files: { 'observations/index.json': { sha256: 'ab'.repeat(32), bytes: 1234 } },
};

describe('the manifest seal', () => {
  it('a sealed manifest reads back as written', () => {
    const text = sealManifest(manifest);
    const read = parseManifest(Buffer.from(text));
    expect(read.manifest_sha256).toMatch(/^[0-9a-f]{64}$/);
    const { manifest_sha256: _seal, ...rest } = read;
    expect(rest).toEqual(manifest);
  });

  it('every single-byte change is refused, those that keep valid JSON by the seal, but one in the name of the seal', () => {
    const bytes = Buffer.from(sealManifest(manifest));
    // A change to the name `manifest_sha256` itself leaves a manifest without a seal, which is read
    // as one written before seals were (the limit docs/operations.md states).
    const name = bytes.indexOf('"manifest_sha256"') + 1;
    let bySeal = 0;
    for (let at = 0; at < bytes.length; at++)
      for (const mask of [0x01, 0x20]) {
        const damaged = Buffer.from(bytes);
        damaged[at] = damaged[at]! ^ mask;
        let error: unknown;
        let read: Manifest | undefined;
        try {
          read = parseManifest(damaged);
        } catch (e) {
          error = e;
        }
        if (at >= name && at < name + 'manifest_sha256'.length) {
          if (!error) expect(read!.manifest_sha256, `byte ${at} ^${mask}`).toBeUndefined();
          continue;
        }
        expect(error, `byte ${at} ^${mask}`).toBeDefined();
        if (error instanceof ManifestInvalid) bySeal++;
      }
    // Most changes inside strings and numbers keep the JSON valid: only the seal sees them.
    expect(bySeal).toBeGreaterThan(bytes.length / 2);
  });

  it('a manifest written before the seal is read as it is', () => {
    expect(parseManifest(Buffer.from(JSON.stringify(manifest))).build_id).toBe(manifest.build_id);
  });
});
