// `node --import <this file>`: registers `mcp-source-hooks.mjs` (see there why and when).
import { register } from 'node:module';

register('./mcp-source-hooks.mjs', import.meta.url);
