#!/usr/bin/env bash
# Installs the real MCP client binaries the client tests drive, as test tools in .test-tools/
# (not dependencies of the package). Each comes from the npm registry with its native binary as an
# optional per-platform package, so nothing is downloaded from elsewhere.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
CODEX_VERSION="${CODEX_VERSION:-0.171.0}"
mkdir -p .test-tools
[ -f .test-tools/package.json ] || echo '{ "name": "python-session-test-tools", "private": true }' > .test-tools/package.json
# Claude Code's postinstall only copies its native binary into place; the tests run the
# per-platform binary directly, so the script is not needed.
npm install --prefix .test-tools --no-audit --no-fund --ignore-scripts \
  "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" "@openai/codex@${CODEX_VERSION}"
