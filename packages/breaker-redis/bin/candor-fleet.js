#!/usr/bin/env node
// A committed entry, so a fresh clone's `pnpm install` can link the bin before anything is built.
import '../dist/cli/candor-fleet.js';
