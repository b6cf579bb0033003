#!/usr/bin/env bash
# Installs the real MCP client binaries the client tests drive, as test tools in .test-tools/
# (not dependencies of the package): Claude Code, Codex and Gemini CLI. Each comes from the npm
# registry (Claude Code and Codex with their native binary as an optional per-platform package),
# so nothing is downloaded from elsewhere.
set -euo pipefail
cd "$(dirname "$0")/../.."
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
CODEX_VERSION="${CODEX_VERSION:-0.171.0}"
GEMINI_CLI_VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
mkdir -p .test-tools
[ -f .test-tools/package.json ] || echo '{ "name": "python-session-test-tools", "private": true }' > .test-tools/package.json
# Claude Code's postinstall only copies its native binary into place; the tests run the
# per-platform binary directly, so the script is not needed. Gemini CLI is one bundled script
# (bundle/gemini.js, engines node >=20) that the tests run on the Node running them; it has no
# install script, and its optional native modules (a terminal, a keychain) are not used by
# `gemini mcp list`.
npm install --prefix .test-tools --no-audit --no-fund --ignore-scripts \
  "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" "@openai/codex@${CODEX_VERSION}" \
  "@google/gemini-cli@${GEMINI_CLI_VERSION}"
