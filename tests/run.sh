#!/usr/bin/env bash
# The README's test command: install everything the tests need on a fresh clone of a fresh machine, then
# run them with the browser tests and every quality gate required (a missing part fails, never skips).
# Arguments go to pytest (`bash tests/run.sh tests/cards -x`).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's packages, only what is missing: Chromium for the widget's browser tests (driven by Playwright,
# which downloads no browser), bubblewrap for the commands' sandbox, Node.js with npm for the front end's
# packages, and PostgreSQL's server for the team store's tests.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
# bubblewrap, the sandbox the engine runs commands in; the sandbox tests need it.
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
# PostgreSQL's server, for the team store's tests (tests/postgres.py runs its initdb in a temporary folder);
# the psql client alone is not enough.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "The tests need ${missing[*]}, and this machine has no apt-get to install them: install them, then run this again." >&2
    exit 1
  fi
  as_root=()
  [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  echo "Installing ${missing[*]} from Debian's packages" >&2
  "${as_root[@]}" apt-get update -qq
  # One at a time: apt refuses a whole set for one package's held dependency ("held broken packages")
  # where each alone installs.
  for package in "${missing[@]}"; do
    "${as_root[@]}" apt-get install -y -qq "$package" >/dev/null
  done
fi

# The front ends' packages, as their lock files pin them: in js/, tsc and dpdm (the import cycles of both
# front ends) for the TypeScript gates, marked for the tests that render Markdown as JupyterLab does, esbuild
# for the bundle; in labextension/, JupyterLab's packages for the plugin's TypeScript gate and JupyterLab's
# builder, which the build hook runs when the plugin's build is stale; in tests/claude-code/, Claude Code's
# CLI as npm installs it, which the claude-agent tests run. A node_modules that links to another checkout is
# left as it is.
for folder in js labextension tests/claude-code; do
  if [ ! -L "$folder/node_modules" ]; then
    (cd "$folder" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done

pip install -e ".[test]"

export MEWRK_REQUIRE_BROWSER=1 MEWRK_REQUIRE_GATES=1
status=0
python -m pytest "$@" || status=$?
# pytest exits 5 when it collects no tests: that is no pass.
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
fi
exit "$status"
