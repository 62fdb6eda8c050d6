#!/usr/bin/env bash
# scripts/new-package.sh <dir-name> <description>: lays out a library package in packages/.
set -euo pipefail
name=$1; desc=$2; dir=packages/$name
mkdir -p "$dir/src"
cat > "$dir/package.json" <<JSON
{
  "name": "@hal-ai/$name",
  "version": "0.1.0",
  "description": "$desc",
  "license": "MIT",
  "type": "module",
  "sideEffects": false,
  "engines": { "node": ">=20.19" },
  "exports": {
    ".": {
      "@hal-ai/source": "./src/index.ts",
      "types": "./dist/index.d.ts",
      "import": "./dist/index.js"
    },
    "./package.json": "./package.json"
  },
  "main": "./dist/index.js",
  "types": "./dist/index.d.ts",
  "files": ["dist", "src", "!src/**/*.test.ts", "README.md", "CHANGELOG.md"],
  "scripts": {
    "build": "tsup",
    "test": "vitest run",
    "typecheck": "tsc --noEmit -p tsconfig.json",
    "publint": "publint"
  },
  "publishConfig": { "access": "public" }
}
JSON
cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "../../tsconfig.base.json",
  "include": ["src", "test", "*.ts"]
}
JSON
cat > "$dir/tsup.config.ts" <<TS
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
TS
cat > "$dir/vitest.config.ts" <<TS
import { defineHalVitestConfig } from '../../vitest.shared';

export default defineHalVitestConfig();
TS
[ -f "$dir/README.md" ] || printf '# @hal-ai/%s\n\n%s\n' "$name" "$desc" > "$dir/README.md"
[ -f "$dir/src/index.ts" ] || echo "export {};" > "$dir/src/index.ts"
