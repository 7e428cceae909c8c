# A fake ESP-IDF checkout for tests (docs/idf-builds.md): a small git
# repository with the files espbench reads of a real one —
# components/esp_common/include/esp_idf_version.h, export.sh, tools/idf.py —
# whose idf.py "builds" by writing an image with `espbench-vboard mkimage`
# ($VBOARD): the app descriptor carries the commit's version (tools/idf_ver,
# "v5.MINOR-dev-N" at commit N) and the test-only efficiency factor of
# tools/sim_efficiency (docs/vboard.md), which the virtual board applies to
# the figures it shapes traffic to. A commit with tools/broken does not build.
# Each `idf.py build` appends a line to .git/fake_idf_builds (outside the tree).
#
#   fake_idf_repo DIR NCOMMITS [BAD_AT FACTOR [BROKEN_FROM BROKEN_TO]]
#     NCOMMITS commits (1..N); from commit BAD_AT on, tools/sim_efficiency is
#     FACTOR (else 1.0); commits BROKEN_FROM..BROKEN_TO carry tools/broken.
#     FAKE_IDF_MINOR (default 3) is the minor version of the header and tags.
#     Commit N is tagged fake-N; HEAD is commit NCOMMITS.
#   fake_idf_builds DIR   how many builds the checkout's idf.py has done.
#   fake_idf_commit DIR N the hash of commit N.

fake_idf_repo() {
  local dir=$1 n=$2 bad_at=${3:-0} factor=${4:-1.0} broken_from=${5:-0} broken_to=${6:-0}
  local minor=${FAKE_IDF_MINOR:-3}
  mkdir -p "$dir/components/esp_common/include" "$dir/tools" "$dir/examples/wifi/iperf"
  (
    cd "$dir" || exit 1
    git init -q .
    git config user.email fake@idf.invalid
    git config user.name "fake idf"
    git config commit.gpgsign false
    cat > components/esp_common/include/esp_idf_version.h <<H
#pragma once
#define ESP_IDF_VERSION_MAJOR   5
#define ESP_IDF_VERSION_MINOR   $minor
#define ESP_IDF_VERSION_PATCH   0
H
    echo "CONFIG_EXAMPLE_FAKE=y" > examples/wifi/iperf/sdkconfig.defaults
    # export.sh: what the real one does for espbench — IDF_PATH and idf.py on PATH.
    cat > export.sh <<'X'
IDF_PATH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export IDF_PATH
export PATH="$IDF_PATH/tools:$PATH"
X
    cat > tools/idf.py <<'X'
#!/usr/bin/env bash
# The fake idf.py: -C DIR -B DIR -DIDF_TARGET=CHIP ... build
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=build target=esp32 cmd=
while [ $# -gt 0 ]; do
  case $1 in
    -C) shift ;;
    -B) build=$2; shift ;;
    -DIDF_TARGET=*) target=${1#-DIDF_TARGET=} ;;
    -D*|--preview) ;;
    *) cmd=$1 ;;
  esac
  shift
done
[ "$cmd" = build ] || { echo "fake idf.py: only 'build' is faked (got '$cmd')" >&2; exit 2; }
echo "$(git -C "$top" rev-parse HEAD) $target" >> "$(git -C "$top" rev-parse --path-format=absolute --git-common-dir)/fake_idf_builds"
echo "fake idf.py: building for $target with $(cat "$top/tools/idf_ver")"
if [ -e "$top/tools/broken" ]; then
  echo "fake idf.py: error: this commit does not build (tools/broken)" >&2
  exit 1
fi
: "${VBOARD:?fake idf.py needs VBOARD, the espbench-vboard program}"
mkdir -p "$build"
"$VBOARD" mkimage --chip "$target" --project espbench --idf "$(cat "$top/tools/idf_ver")" \
  --test-efficiency "$(cat "$top/tools/sim_efficiency")" -o "$build/espbench.bin"
printf '{"flash_files": {"0x10000": "espbench.bin"}, "extra_esptool_args": {"chip": "%s"}}\n' "$target" \
  > "$build/flasher_args.json"
echo "fake idf.py: wrote $build/espbench.bin"
X
    chmod +x tools/idf.py
    local i
    for ((i = 1; i <= n; i++)); do
      echo "v5.$minor-dev-$i" > tools/idf_ver
      if [ "$bad_at" -gt 0 ] && [ "$i" -ge "$bad_at" ]; then echo "$factor" > tools/sim_efficiency
      else echo 1.0 > tools/sim_efficiency; fi
      if [ "$i" -ge "$broken_from" ] && [ "$i" -le "$broken_to" ] && [ "$broken_from" -gt 0 ]; then
        : > tools/broken
      else
        rm -f tools/broken
      fi
      git add -A .
      git commit -q --allow-empty -m "fake commit $i"
      git tag "fake-$i"
    done
  )
}

fake_idf_builds() {
  if [ -f "$1/.git/fake_idf_builds" ]; then wc -l < "$1/.git/fake_idf_builds" | tr -d ' '; else echo 0; fi
}

fake_idf_commit() { git -C "$1" rev-parse "fake-$2"; }
