#!/usr/bin/env bash
# The Debian package (CPack, cmake/package.cmake), as CI tests it (.ci/run): build it from a
# Release build, check that its Depends name the package of every shared library the programs
# link or load and of the programs they run, install it with apt-get (dependencies from the
# archive), then run the installed espbench with the source tree hidden:
#   espbench run --chip esp32c3 --sim --duration 2
# Installs into the system: root or sudo; the package is removed again unless it was there.
# Usage: bash tests/pkg/install_deb.sh [BUILD_DIR]   (default build-deb/)
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
B=${1:-build-deb}
case $B in /*) ;; *) B=$SRC/$B ;; esac
T=$(mktemp -d /tmp/espbench-deb.XXXXXX)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
was_installed=$(dpkg-query -W -f='${Status}' espbench 2>/dev/null | grep -c "install ok installed" || true)
cleanup() {
    [ "$was_installed" != 0 ] || $SUDO apt-get remove -y -qq espbench >/dev/null 2>&1 || true
    rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DESPBENCH_TESTS=OFF \
    -DESPBENCH_WERROR=ON >"$T/cmake.log" || { cat "$T/cmake.log"; fail "configure"; }
cmake --build "$B" -j"$(nproc)" >"$T/build.log" || { tail -30 "$T/build.log"; fail "build"; }
rm -f "$B"/espbench_*.deb
(cd "$B" && cpack -G DEB >"$T/cpack.log") || { cat "$T/cpack.log"; fail "cpack"; }
deb=$(ls "$B"/espbench_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "package: $(basename "$deb"); Depends: $depends"

# Every library the programs link (NEEDED) or dlopen (the sonames in src/lib), and every program
# they run, belongs to a package the .deb depends on.
libs=$(for p in espbench espbench-vboard; do objdump -p "$B/$p" | awk '$1 == "NEEDED" {print $2}'; done
       grep -rhoE '#define (CURL|CRYPTO)_SONAME "[^"]+"' "$SRC/src/lib" | cut -d'"' -f2)
for so in $(echo "$libs" | sort -u); do
    path=$(ldconfig -p | awk -v so="$so" '$1 == so && !f {print $NF; f = 1}')
    [ -n "$path" ] || fail "$so: not found by ldconfig"
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || true)
    pkg=${pkg%%:*}
    [ -n "$pkg" ] || fail "$so ($path): no Debian package owns it"
    grep -Eq "(^|, |\| )$pkg( |,|$)" <<<"$depends" || fail "Depends lacks $pkg (for $so)"
done
for prog in iperf ping; do
    pkg=$(dpkg -S "$(readlink -f "$(command -v "$prog")")" 2>/dev/null || dpkg -S "/bin/$prog" 2>/dev/null || true)
    pkg=${pkg%%:*}
    grep -Eq "(^|, |\| )$pkg( |,|$)" <<<"$depends" || fail "Depends lacks $pkg (runs $prog)"
done

echo "iperf iperf/start_daemon boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$deb" >"$T/apt.log" 2>&1 ||
    { cat "$T/apt.log"; fail "apt-get install $deb"; }
[ "$(command -v espbench)" = /usr/bin/espbench ] || fail "espbench is not /usr/bin/espbench: $(command -v espbench)"
for f in /usr/bin/espbench-vboard /usr/share/espbench/profiles/esp32c3.yaml /usr/share/man/man1/espbench.1 \
         /usr/share/bash-completion/completions/espbench; do
    [ -e "$f" ] || fail "the package did not install $f"
done

# The installed files alone: the source tree is hidden under an empty folder where a private
# mount namespace can be had, and no espbench variable points anywhere.
run=(env -u ESPBENCH_VBOARD -u ESPBENCH_PROFILES -u ESPBENCH_MODEL
     /usr/bin/espbench run --chip esp32c3 --sim --duration 2 --out "$T/run")
if unshare -rm true 2>/dev/null; then
    SRC=$SRC unshare -rm bash -ec 'mount -t tmpfs none "$SRC"; [ -z "$(ls -A "$SRC")" ]; "$@"' hidden "${run[@]}" \
        >"$T/run.log" 2>&1 || { cat "$T/run.log"; fail "the installed espbench run"; }
else
    echo "note: no private mount namespace (unshare -rm): the source tree stays visible"
    "${run[@]}" >"$T/run.log" 2>&1 || { cat "$T/run.log"; fail "the installed espbench run"; }
fi
tail -2 "$T/run.log"
grep -q "12 tests done, 0 skipped, 0 failed of 12" "$T/run.log" || { cat "$T/run.log"; fail "not every test done"; }
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["entries"]; assert len(e)==12 and all(x["status"]=="ok" for x in e)' \
    "$T/run/results.json" || fail "results.json"
echo "ok: $(basename "$deb") installed with apt-get and ran a simulated esp32c3 benchmark"
