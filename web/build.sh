#!/usr/bin/env bash
# Builds the viewer into web/dist/ (index.html, app.js, styles.css, favicon.svg, app.js.map):
# installs the pinned npm packages (three, uplot, jsfive, esbuild) with npm ci, then bundles src/main.js,
# three.js, uPlot and jsfive (the HDF5 reader for replays) into one ES module. Everything the page loads is in dist/: no CDN, works offline.
# The daemon serves it: rodd serve --web-root web/dist.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

# npm ci wipes node_modules first; skip it when node_modules already matches the lock file
if [ ! -x node_modules/.bin/esbuild ] || [ ! -f node_modules/.package-lock.json ] ||
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --ignore-scripts # esbuild needs no install script: its binary is the @esbuild/<platform> package
fi

rm -rf dist
mkdir -p dist
node_modules/.bin/esbuild src/main.js --bundle --format=esm --target=es2022 --minify --sourcemap \
  --legal-comments=linked --log-level=warning --outfile=dist/app.js
cp index.html favicon.svg dist/
# uPlot's own stylesheet first, so that the viewer's rules can adjust it
cat node_modules/uplot/dist/uPlot.min.css styles.css >dist/styles.css
echo "web/build.sh: built $(du -sh dist | cut -f1) into web/dist"
