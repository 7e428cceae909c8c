# A fake ESP-IDF checkout for tests (docs/idf-builds.md): a small git
# repository with the files espbench reads or runs of a real one —
# components/esp_common/include/esp_idf_version.h, export.sh (and
# tools/activate for activate.py), install.sh, tools/idf.py — copied from
# tests/fixtures/idf-build/fake/, each quirk there with its source named.
# idf.py "builds" by writing an image with `espbench-vboard mkimage`
# ($VBOARD): the app descriptor carries the commit's version (tools/idf_ver,
# "v5.MINOR-dev-N" at commit N) and the test-only efficiency factor of
# tools/sim_efficiency (docs/vboard.md), which the virtual board applies to
# the figures it shapes traffic to. A commit with tools/broken does not build.
# Each `idf.py build` appends a line to .git/fake_idf_builds (outside the tree).
# export.sh needs the version's Python environment under $IDF_TOOLS_PATH
# (fake_idf_repo runs install.sh; IDF_TOOLS_PATH defaults to $T/espressif).
#
#   fake_idf_repo DIR NCOMMITS [BAD_AT FACTOR [BROKEN_FROM BROKEN_TO]]
#     NCOMMITS commits (1..N); from commit BAD_AT on, tools/sim_efficiency is
#     FACTOR (else 1.0); commits BROKEN_FROM..BROKEN_TO carry tools/broken.
#     FAKE_IDF_MINOR (default 3) is the minor version of the header and tags.
#     Commit N is tagged fake-N; HEAD is commit NCOMMITS. FAKE_IDF_RENAME_AT=N
#     renames the Kconfig option FAKE_IDF_RENAME (default LWIP_TCP_WND_DEFAULT)
#     from commit N on: an sdkconfig-default regression.
#   fake_idf_release DIR   ESP-IDF's branching with a Wi-Fi library submodule
#     (see the function).
#   fake_idf_builds DIR   how many builds the checkout's idf.py has done.
#   fake_idf_commit DIR N the hash of commit N.

FAKE_IDF_SRC=${FIXTURES_DIR:-$(dirname "${BASH_SOURCE[0]}")/../../fixtures}/idf-build/fake
export IDF_TOOLS_PATH=${IDF_TOOLS_PATH:-$T/espressif}

fake_idf_git() { git -c user.email=fake@idf.invalid -c user.name="fake idf" -c commit.gpgsign=false "$@"; }

fake_idf_header() { # DIR MINOR PATCH
  cat > "$1/components/esp_common/include/esp_idf_version.h" <<H
#pragma once
#define ESP_IDF_VERSION_MAJOR   5
#define ESP_IDF_VERSION_MINOR   $2
#define ESP_IDF_VERSION_PATCH   ${3:-0}
H
}

fake_idf_skeleton() { # DIR MINOR
  local dir=$1
  mkdir -p "$dir/components/esp_common/include" "$dir/tools" "$dir/examples/wifi/iperf"
  git init -q "$dir"
  fake_idf_header "$dir" "$2" 0
  echo "CONFIG_EXAMPLE_FAKE=y" > "$dir/examples/wifi/iperf/sdkconfig.defaults"
  printf 'cmake_minimum_required(VERSION 3.16)\ninclude($ENV{IDF_PATH}/tools/cmake/project.cmake)\nproject(iperf)\n' \
    > "$dir/examples/wifi/iperf/CMakeLists.txt"
  cp "$FAKE_IDF_SRC/export.sh" "$FAKE_IDF_SRC/install.sh" "$dir/"
  cp "$FAKE_IDF_SRC/tools/idf.py" "$FAKE_IDF_SRC/tools/activate" "$FAKE_IDF_SRC/tools/kconfig" "$dir/tools/"
  echo "13.2.0_20240530" > "$dir/tools/gcc_ver"
  echo 1.0 > "$dir/tools/sim_efficiency"
}

fake_idf_repo() {
  local dir=$1 n=$2 bad_at=${3:-0} factor=${4:-1.0} broken_from=${5:-0} broken_to=${6:-0}
  local minor=${FAKE_IDF_MINOR:-3}
  fake_idf_skeleton "$dir" "$minor"
  (
    cd "$dir" || exit 1
    local i
    for ((i = 1; i <= n; i++)); do
      echo "v5.$minor-dev-$i" > tools/idf_ver
      if [ "$bad_at" -gt 0 ] && [ "$i" -ge "$bad_at" ]; then echo "$factor" > tools/sim_efficiency
      else echo 1.0 > tools/sim_efficiency; fi
      # A renamed Kconfig option from commit FAKE_IDF_RENAME_AT on: the
      # firmware's line for it is dropped, the new option's default applies.
      if [ -n "${FAKE_IDF_RENAME_AT-}" ] && [ "$i" -ge "$FAKE_IDF_RENAME_AT" ]; then
        sed -i "s/^${FAKE_IDF_RENAME:-LWIP_TCP_WND_DEFAULT}=/${FAKE_IDF_RENAME:-LWIP_TCP_WND_DEFAULT}_BYTES=/" tools/kconfig
      fi
      if [ "$i" -ge "$broken_from" ] && [ "$i" -le "$broken_to" ] && [ "$broken_from" -gt 0 ]; then
        : > tools/broken
      else
        rm -f tools/broken
      fi
      git add -A .
      fake_idf_git commit -q --allow-empty -m "fake commit $i"
      git tag "fake-$i"
    done
  )
  "$dir/install.sh" >/dev/null
}

# ESP-IDF's history shape (docs.espressif.com "ESP-IDF versions"): master is
# tagged vX.Y-dev where X.Y development starts; release/vX.Y branches off
# master and gets vX.Y, vX.Y.1 ... with backports (cherry-picks), so a
# release tag is no ancestor of master; master takes feature branches merged
# with --no-ff. components/esp_wifi/lib is a submodule (a local repository
# DIR-wifi-lib) whose "efficiency" file the fake idf.py multiplies in.
#   master: m1 (v5.2-dev, lib A) m2 m3 = branch point; release/v5.2: backport,
#   v5.2 (5.2.0), backport, v5.2.1 (5.2.1); master after m3: header 5.3.0
#   (v5.3-dev), then merges of feature/1..feature/7; feature/4 bumps the Wi-Fi
#   library to B (efficiency $1, default 0.8): the regression.
# Sets FAKE_IDF_REGRESSION to the merge commit that bumps the library.
fake_idf_release() {
  local dir=$1 factor=${2:-0.8} lib=$1-wifi-lib
  git init -q "$lib"
  echo 1.0 > "$lib/efficiency"
  git -C "$lib" add efficiency && fake_idf_git -C "$lib" commit -qm "wifi lib A"
  local lib_a; lib_a=$(git -C "$lib" rev-parse HEAD)
  echo "$factor" > "$lib/efficiency"
  fake_idf_git -C "$lib" commit -qam "wifi lib B"
  fake_idf_skeleton "$dir" 2
  (
    cd "$dir" || exit 1
    git checkout -q -b master
    git -c protocol.file.allow=always submodule add -q "$lib" components/esp_wifi/lib
    git -C components/esp_wifi/lib checkout -q "$lib_a"
    echo "v5.2-dev" > tools/idf_ver
    git add -A . && fake_idf_git commit -qm "m1: start of v5.2 development" && git tag v5.2-dev
    for m in 2 3; do echo "m$m" > "tools/m$m" && git add -A . && fake_idf_git commit -qm "m$m"; done
    git checkout -q -b release/v5.2
    echo "backport 1" > tools/backport1 && git add -A . && fake_idf_git commit -qm "backport 1"
    echo "v5.2" > tools/idf_ver && git add -A . && fake_idf_git commit -qm "release v5.2" && git tag v5.2
    echo "backport 2" > tools/backport2 && fake_idf_header . 2 1 && echo "v5.2.1" > tools/idf_ver
    git add -A . && fake_idf_git commit -qm "release v5.2.1" && git tag v5.2.1
    ./install.sh >/dev/null # the v5.2 Python environment (the merge base is a v5.2)
    git checkout -q master
    fake_idf_header . 3 0 && echo "v5.3-dev" > tools/idf_ver
    git add -A . && fake_idf_git commit -qm "bump version to 5.3" && git tag v5.3-dev
    local f
    for f in 1 2 3 4 5 6 7; do
      git checkout -q -b "feature/$f"
      echo "change $f" > "tools/feature$f" && git add -A . && fake_idf_git commit -qm "feature $f: part 1"
      if [ "$f" = 4 ]; then
        git -C components/esp_wifi/lib checkout -q master 2>/dev/null || git -C components/esp_wifi/lib checkout -q main
        git add components/esp_wifi/lib && fake_idf_git commit -qm "esp_wifi: update wifi libs"
      else
        echo "more $f" >> "tools/feature$f" && git add -A . && fake_idf_git commit -qm "feature $f: part 2"
      fi
      git checkout -q master
      fake_idf_git merge -q --no-ff -m "Merge branch 'feature/$f' into 'master'" "feature/$f"
    done
  )
  FAKE_IDF_REGRESSION=$(git -C "$dir" log --first-parent --format=%H --grep="feature/4" -1)
  "$dir/install.sh" >/dev/null
}

fake_idf_builds() {
  if [ -f "$1/.git/fake_idf_builds" ]; then wc -l < "$1/.git/fake_idf_builds" | tr -d ' '; else echo 0; fi
}

fake_idf_commit() { git -C "$1" rev-parse "fake-$2"; }
