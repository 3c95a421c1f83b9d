#!/usr/bin/env node
// The operator CLI. Registers the TypeScript loader, then runs src/cli/run-operator-cli.ts.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/run-operator-cli.ts');
