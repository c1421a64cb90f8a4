// The service version, read once from package.json so /health, /openapi.json and the MCP server
// name the same release.
import { readFileSync } from 'node:fs';

export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
