#!/usr/bin/env bash
# run --manifest with the espbench firmware on a board (the virtual board over
# its pty): a manifest of tier images (`espbench build --tier all`, the fake
# ESP-IDF) gives each tier whose build-time settings differ from the image on
# the board its own image, and only those; each entry carries the SHA-256 of
# the image it ran; without an image of its own (no manifest, or none for the
# tier) the run says in one line, and in the entry's tier_note, which
# build-time settings differ. Stock firmware from a manifest starts on an
# empty flash. No rate is asserted.
source "$(dirname "$0")/lib/run_helpers.sh"
LO=$(loopback_ip) # the boards and the PC side on an address of this test's own
source "$(dirname "$0")/lib/fake_idf.sh"
export VBOARD

fake_idf_repo "$T/idf-a" 2
cache=$T/cache
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --cache "$cache" >"$T/b0" 2>"$T/be0" || fail "plain build: $(cat "$T/be0")"
plain=$(awk '{print $4}' "$T/b0")/espbench.bin
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier all --cache "$cache" --manifest "$T/m.json" \
    >"$T/b1" 2>"$T/be1" || fail "tier build: $(cat "$T/be1")"
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier minimum --cache "$cache" --manifest "$T/m-min.json" \
    >/dev/null 2>"$T/be2" || fail "minimum build: $(cat "$T/be2")"

export VBPW=lab-secret-1
"$VBOARD" --chip esp32s3 --flash "$T/b.flash" --link "$T/b.tty" --sync-resets --no-baud-timing --no-flash-timing \
    --ip "$LO" --ap "lab:env:VBPW:-40" >"$T/b.vb.out" 2>"$T/b.vb.err" &
BG+=($!)
for _ in $(seq 200); do [ -e "$T/b.tty" ] && break; sleep 0.05; done
"$ESPBENCH" flash --port "$T/b.tty" --build-dir "$(dirname "$plain")" --stub off >"$T/f0" 2>&1 \
    || fail "flash the plain image: $(cat "$T/f0")"
run() { "$ESPBENCH" run --chip esp32s3 --tests tcp_tx --duration 2 --interval 1 --warmup 0 --port "$T/b.tty" \
    --ssid lab --password-env VBPW --pc-address "$LO" --stub off "$@"; }

# entries OUT LAST-SHA NOTE-TIERS: the board ended on the image with SHA-256 LAST
# (the results' board record), every entry is ok, and only the tiers named carry
# a tier_note (the firmware's tier_show reported the tier's own build-time
# settings for the others: the image it runs was built with them).
entries() {
    python3 - "$1/results.json" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["boards"][0]["fw_sha256"] == sys.argv[2], (r["boards"][0]["fw_sha256"], sys.argv[2])
noted = set(filter(None, sys.argv[3].split(",")))
for e in r["entries"]:
    t = e["tier"]
    assert e["status"] == "ok", (t, e["status"])
    assert bool(e.get("tier_note")) == (t in noted), (t, e.get("tier_note"))
PY
}
# on_flash SHA: the app partition (0x10000) of the board's flash holds the image with that SHA-256.
on_flash() {
    local n
    n=$(python3 - "$T/m.json" "$1" <<'PY'
import json, sys, os, urllib.parse
m = json.load(open(sys.argv[1]))
for t in m["firmware"]["espbench"]["chips"]["esp32s3"]["tiers"].values():
    for i in t["images"]:
        if i["sha256"] == sys.argv[2]:
            print(os.path.getsize(urllib.parse.urlparse(i["url"]).path))
PY
)
    [ -n "$n" ] && [ "$(dd if="$T/b.flash" bs=4096 skip=16 2>/dev/null | head -c "$n" | sha256sum | cut -d' ' -f1)" = "$1" ]
}
img() { # the SHA-256 of TIER's image in manifest FILE
    python3 - "$1" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
(i,) = m["firmware"]["espbench"]["chips"]["esp32s3"]["tiers"][sys.argv[2]]["images"]
print(i["sha256"])
PY
}

# The plain image has the largest build-time settings (the iperf tier's): the
# iperf tier runs on it; minimum and default differ, so each gets its own image.
run --tier iperf,minimum,default --manifest "$T/m.json" --out "$T/r1" >"$T/e1" 2>&1 \
    || fail "run over tier images: $(cat "$T/e1")"
grep -q "flashing the espbench image for tier iperf" "$T/e1" && fail "iperf flashed: $(cat "$T/e1")"
grep -q "flashing the espbench image for tier minimum$" "$T/e1" || fail "minimum not flashed: $(cat "$T/e1")"
grep -q "flashing the espbench image for tier default$" "$T/e1" || fail "default not flashed: $(cat "$T/e1")"
grep -q "build-time settings differ" "$T/e1" && fail "a tier ran without its settings: $(cat "$T/e1")"
[ "$(grep -o "flashing the espbench image for tier [a-z]*" "$T/e1" | awk '{print $NF}' | tr '\n' ' ')" = "minimum default " ] \
    || fail "flash order: $(cat "$T/e1")"
entries "$T/r1" "$(img "$T/m.json" default)" "" || fail "images per tier"
on_flash "$(img "$T/m.json" default)" || fail "the default tier's image is not on the board"

# The board now runs the default tier's image: the iperf tier needs its own.
run --tier iperf --manifest "$T/m.json" --out "$T/r2" >"$T/e2" 2>&1 || fail "second run: $(cat "$T/e2")"
grep -q "flashing the espbench image for tier iperf$" "$T/e2" || fail "iperf not flashed: $(cat "$T/e2")"
entries "$T/r2" "$(img "$T/m.json" iperf)" "" || fail "iperf's image"
on_flash "$(img "$T/m.json" iperf)" || fail "the iperf tier's image is not on the board"

# A runtime-only image: without a manifest, one line and the entry's tier_note
# say which build-time settings differ (the iperf image has 64 KB windows).
run --tier minimum --out "$T/r3" >"$T/e3" 2>&1 || fail "runtime-only run: $(cat "$T/e3")"
grep -q "tier minimum: the firmware's build-time settings differ: tcp_snd_buf_kb=64 (tier 6), tcp_wnd_kb=64 (tier 6),.*; the runtime settings are the tier's$" "$T/e3" \
    || fail "no settings-differ line: $(cat "$T/e3")"
grep -q "flashing" "$T/e3" && fail "flashed without a manifest: $(cat "$T/e3")"
json_check "$T/r3" '"tcp_wnd_kb=64 (tier 6)" in r["entries"][0]["tier_note"]' || fail "tier_note"

# A manifest without the tier's image: the same line, saying why.
run --tier default --manifest "$T/m-min.json" --out "$T/r4" >"$T/e4" 2>&1 || fail "partial manifest: $(cat "$T/e4")"
grep -q "tier default: the firmware's build-time settings differ: tcp_snd_buf_kb=64 (tier 32).*; no image of its own: " "$T/e4" \
    || fail "no settings-differ line: $(cat "$T/e4")"
entries "$T/r4" "" "default" || fail "runtime-only entry"
on_flash "$(img "$T/m.json" iperf)" || fail "the board's image changed"

# Stock firmware from a manifest on a board whose flash is empty: the first
# tier's image is flashed before the console is opened.
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier all --project iperf-example --cache "$cache" \
    --manifest "$T/ms.json" >/dev/null 2>"$T/be5" || fail "iperf-example build: $(cat "$T/be5")"
"$VBOARD" --chip esp32s3 --flash "$T/s.flash" --link "$T/s.tty" --sync-resets --no-baud-timing --no-flash-timing \
    --ip "$LO" --ap "lab:env:VBPW:-40" >"$T/s.vb.out" 2>"$T/s.vb.err" &
BG+=($!)
for _ in $(seq 200); do [ -e "$T/s.tty" ] && break; sleep 0.05; done
"$ESPBENCH" run --chip esp32s3 --tests tcp_tx --duration 2 --interval 1 --warmup 0 --port "$T/s.tty" \
    --ssid lab --password-env VBPW --pc-address "$LO" --stub off --tier minimum --manifest "$T/ms.json" \
    --firmware iperf-example --out "$T/r5" >"$T/e5" 2>&1 || fail "stock run on an empty flash: $(cat "$T/e5")"
[ "$(grep -c "flashing the iperf-example image for tier minimum$" "$T/e5")" = 1 ] || fail "not flashed once: $(cat "$T/e5")"
json_check "$T/r5" 'len(r["entries"]) == 1 and r["entries"][0]["status"] == "ok"' || fail "stock entry"
echo "run_tier_images: ok"
