#!/usr/bin/env bash
# Options and names as people type them: an abbreviated option is refused
# (a password given to '--password' in tune once landed in --password-env and
# in the CI log) and no value given near a secret is printed; a command,
# option, chip, tier or test one edit off gets the nearest name; the printed
# spellings (ESP32-C3, Iperf, TCP TX) are taken; run lists every missing
# required option at once; empty names, a tier twice and a report whose file
# name asks for another format are usage errors.
source "$(dirname "$0")/lib/run_helpers.sh"

SECRET=hunter2-not-shown
# Abbreviations: refused, the value never shown.
expect_rc 2 "$ESPBENCH" tune --chip esp32c3 --dry-run --password-e "$SECRET"
has "espbench tune: '--password-e' is not an option (options are written in full: --password-env); the value given is not shown; see 'espbench help tune'"
expect_rc 2 "$ESPBENCH" tune --chip esp32c3 --dry-run --password "$SECRET"
has "espbench tune: the Wi-Fi password is never a flag"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --passw="$SECRET"
has "espbench run: unknown option '--passw'"
expect_rc 2 "$ESPBENCH" tune --chip esp32c3 --dry-run --password-env "$SECRET"
has "espbench tune: the environment variable named by --password-env is not set (the name is not shown, in case it is the password itself)"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --tes tcp_tx
has "espbench run: '--tes' is not an option (options are written in full: --tests); see 'espbench help run'"
expect_rc 2 "$ESPBENCH" report --form csv x.json
has "espbench report: '--form' is not an option (options are written in full: --format)"
for out in "$T"/*.out; do ! grep -q "$SECRET" "$out" || fail "the secret was printed"; done
grep -rq "$SECRET" "$T" && fail "the secret reached a file"

# Did you mean: a command, an option, a chip, a tier, a test.
expect_rc 2 "$ESPBENCH" rnu
has "espbench: no command 'rnu'; did you mean 'run'?; see 'espbench --help'"
expect_rc 2 "$ESPBENCH" --verbos profiles list
has "espbench: unknown option '--verbos'; did you mean '--verbose'?"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --duraton 5
has "espbench run: unknown option '--duraton'; did you mean '--duration'?"
expect_rc 2 "$ESPBENCH" run --chip esp32c33 --sim --out "$T/x"
has "espbench run: no profile for chip 'esp32c33'; did you mean 'esp32c3'? (see 'espbench profiles')"
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tier iperff --out "$T/x"
has "espbench run: chip esp32c3 has no tier 'iperff'; did you mean 'iperf'? (tiers: iperf, default, minimum; or all, psram)"
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tests tcp_rz --out "$T/x"
has "espbench run: unknown test 'tcp_rz'; did you mean 'tcp_rx'?"

# Every missing required option at once.
expect_rc 2 "$ESPBENCH" run
has "espbench run: missing required options: a board (--port URL, --sim or --lab FILE), --chip CHIP; see 'espbench help run'"
expect_rc 2 "$ESPBENCH" run --port /dev/null
has "espbench run: missing required options: --chip CHIP, --ssid SSID, --pc-address IP"

# Empty names, a tier twice (as typed and as printed).
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tier ""
has "espbench run: --tier '': an empty tier name"
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tier iperf,
has "espbench run: --tier 'iperf,': an empty tier name"
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --out ""
has "espbench run: --out '': an empty folder name"
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tier iperf,Iperf --out "$T/x"
has "espbench run: --tier names 'Iperf' twice ('iperf' and 'Iperf'): each tier runs once; use --repeat N for repeats"
[ ! -e "$T/x" ] || fail "a usage error made the run folder"

# The printed spellings are the names; results carry the profile's.
expect_rc 0 "$ESPBENCH" run --chip ESP32-C3 --sim --tier Iperf --tests "TCP TX" --duration 2 --interval 1 \
    --warmup 0 --out "$T/printed"
json_check "$T/printed" '[(e["chip"], e["tier"], e["test"]) for e in r["entries"]] == [("esp32c3", "iperf", "tcp_tx")]'
json_check "$T/printed" 'r["boards"][0]["chip"] == "esp32c3"'

# report -o: the file name's format and --format agree.
R="$T/printed/results.json"
expect_rc 2 "$ESPBENCH" report "$R" -o "$T/out.pdf"
has "espbench report: -o $T/out.pdf: '.pdf' is not a format espbench writes (csv, json, rst, md, html); name the file so, or give --format"
[ ! -e "$T/out.pdf" ] || fail "RST written into a .pdf"
expect_rc 2 "$ESPBENCH" report "$R" -o "$T/out.json" --format csv
has "espbench report: -o $T/out.json and --format csv disagree; name the file .csv or leave out --format"
expect_rc 0 "$ESPBENCH" report "$R" -o "$T/out.txt" --format md
grep -q "^## ESP32-C3" "$T/out.txt" || fail "--format md into out.txt"
expect_rc 0 "$ESPBENCH" report "$R" -o "$T/out.csv"
head -1 "$T/out.csv" | grep -q "^board,chip,tier,test," || fail "-o out.csv is not CSV"

# The firmware's iperf limits: refused before any board, not retried per test.
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tier iperf --tests tcp_tx --duration 1e9 --out "$T/long"
has "espbench run: --duration 1e+09 s is more than the espbench firmware's iperf takes (-t at most 86400 s, dialects/espbench.yaml); shorten --duration"
echo ok
