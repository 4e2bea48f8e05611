#!/usr/bin/env node
// The `alertbridge` bin. A checked-in file rather than dist/cli.js itself: npm links a workspace's
// bins before `prepare` builds dist/ (`npm ci` on a clean clone), and skips a target that is missing.
import '../dist/cli.js';
