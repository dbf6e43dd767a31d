#!/usr/bin/env bash
# Regenerates the generated pages of docs/ from a build: today docs/configuration.md, the
# parameter table as `pcoll-info --params-markdown` prints it (cmake/pcoll_gen_docs.cmake). Run it
# after adding or changing an algorithm or a parameter, and commit the result; ctest's
# docs.configuration fails until you do.
#   scripts/regen-docs.sh [BUILD_DIR]      (default: $PCOLL_BUILD_DIR, else build/)
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
case "${1:-}" in -h|--help) sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
build="${1:-${PCOLL_BUILD_DIR:-${root}/build}}"

# build.sh configures the tree if needed; the target builds pcoll-info and writes the page.
"${here}/build.sh" "${build}" docs-configuration
git -C "${root}" diff --stat -- docs/configuration.md 2>/dev/null || true
pcoll_msg "docs/configuration.md regenerated from ${build}/collectives/pcoll-info"
