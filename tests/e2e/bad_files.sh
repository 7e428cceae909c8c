#!/usr/bin/env bash
# Files and downloads that point where they should not are refused with one
# line: a manifest "file" with "..", or absolute; a local image whose sha256
# differs; a URL redirected to another host (the manifest pins the host: the
# other host is never asked), while a same-host redirect is followed; a 2 GB
# download (announced, or streamed without a length) stopped at the limit.
# Profiles and lab files that are huge, nested without end, or built on YAML
# aliases (billion laughs) are refused fast with bounded memory. Real HTTP
# servers on 127.0.0.1 and 127.0.0.2.
source "$(dirname "$0")/lib/flash_helpers.sh"
export XDG_CACHE_HOME="$T/cache"
# one_line NAME: the last command printed one error line (the pty's DTR/RTS notice and the no-stub hint aside)
one_line() { [ "$(grep -v -e 'cannot set DTR/RTS' -e 'no flasher stub for the' "$T/err" | grep -c .)" = 1 ] || { cat "$T/err" >&2; fail "more than one line: $*"; }; }

mkdir -p "$T/www" "$T/fw/sub" "$T/outside"
mkimage esp32c3 "$T/www/app.bin" 60000 app
cp "$T/www/app.bin" "$T/outside/app.bin"
cp "$T/www/app.bin" "$T/fw/sub/app.bin"
sha() { sha256sum "$1" | cut -d' ' -f1; }
SHA=$(sha "$T/www/app.bin")

cat >"$T/server.py" <<'PY'
import http.server, os, sys
host, port, root, log, other = sys.argv[1], int(sys.argv[2]), sys.argv[3], open(sys.argv[4], "a", buffering=1), sys.argv[5]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        log.write(self.path + "\n")
        kind, _, name = self.path.strip("/").partition("/")
        if kind == "redirect-other":   # to the same path on another host
            self.send_response(302); self.send_header("Location", other + "/files/" + name)
            self.send_header("Content-Length", "0"); self.end_headers(); return
        if kind == "redirect-same":
            self.send_response(301); self.send_header("Location", "/files/" + name)
            self.send_header("Content-Length", "0"); self.end_headers(); return
        if kind in ("huge", "endless"):   # 2 GB of zeros, announced or not
            self.send_response(200)
            if kind == "huge":
                self.send_header("Content-Length", str(2 << 30))
            else:
                self.protocol_version = "HTTP/1.0"
            self.end_headers()
            try:
                for _ in range((2 << 30) // 65536):
                    self.wfile.write(b"\0" * 65536)
            except OSError:
                pass
            return
        data = open(os.path.join(root, name), "rb").read()
        self.send_response(200); self.send_header("Content-Length", str(len(data))); self.end_headers()
        self.wfile.write(data)
http.server.ThreadingHTTPServer((host, port), H).serve_forever()
PY
HP=$(free_port)
python3 "$T/server.py" 127.0.0.1 "$HP" "$T/www" "$T/a.log" "http://127.0.0.2:$HP" &
PIDS+=($!)
python3 "$T/server.py" 127.0.0.2 "$HP" "$T/www" "$T/b.log" "http://127.0.0.1:$HP" &
PIDS+=($!)
for h in 127.0.0.1 127.0.0.2; do
    for _ in $(seq 600); do python3 -c "import socket; socket.create_connection(('$h',$HP),0.2).close()" 2>/dev/null && break; sleep 0.05; done
done
U="http://127.0.0.1:$HP"
img() { printf '{"offset": "0x10000", "%s": "%s", "sha256": "%s"}' "$1" "$2" "$3"; }
entry() { printf '"%s": {"chips": {"esp32c3": {"images": [%s]}}}' "$1" "$2"; }
cat >"$T/fw/manifest.json" <<JSON
{"schema": 1, "firmware": {
  $(entry dotdot "$(img file ../outside/app.bin "$SHA")"),
  $(entry inner_dotdot "$(img file sub/../../outside/app.bin "$SHA")"),
  $(entry absolute "$(img file "$T/outside/app.bin" "$SHA")"),
  $(entry mismatch "$(img file sub/app.bin "$SHA")"),
  $(entry sub "$(img file sub/app.bin "$SHA")"),
  $(entry other_host "$(img url "$U/redirect-other/app.bin" "$SHA")"),
  $(entry same_host "$(img url "$U/redirect-same/app.bin" "$SHA")"),
  $(entry huge "$(img url "$U/huge/x.bin" "$(printf "ab%.0s" $(seq 32))")"),
  $(entry endless "$(img url "$U/endless/x.bin" "$(printf "cd%.0s" $(seq 32))")")
}}
JSON
# the "mismatch" entry's hash is that of some other content
python3 - "$T/fw/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["firmware"]["mismatch"]["chips"]["esp32c3"]["images"][0]["sha256"] = "0" * 64
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY

start_vboard b esp32c3 --no-baud-timing
F=(flash --port "$T/b.tty" --manifest "$T/fw/manifest.json")
for fw in dotdot inner_dotdot absolute; do
    expect_fail 2 "points outside the manifest's directory; give a path below it" "$ESPBENCH" "${F[@]}" --firmware $fw
    one_line $fw
done
expect_fail 3 "sub/app.bin: sha256 $SHA does not match the manifest's 0000" "$ESPBENCH" "${F[@]}" --firmware mismatch
one_line mismatch
timeout 240 "$ESPBENCH" "${F[@]}" --firmware sub >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "a file below the manifest"; }

expect_fail 3 "$U/redirect-other/app.bin: redirected to http://127.0.0.2:$HP/files/app.bin, a different host; refusing it" \
    "$ESPBENCH" "${F[@]}" --firmware other_host
one_line other_host
[ ! -s "$T/b.log" ] || fail "the other host was asked: $(cat "$T/b.log")"
timeout 240 "$ESPBENCH" "${F[@]}" --firmware same_host --no-skip >"$T/out" 2>"$T/err" ||
    { cat "$T/err"; fail "a same-host redirect"; }
grep -qx "/files/app.bin" "$T/a.log" || fail "the same-host redirect was not followed"

# huge announces 2 GB (refused against the default 64 MiB limit before its body); endless streams
# without a length and carries "size": 4 MiB, so the stop at the limit is quick to reach.
python3 - "$T/fw/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["firmware"]["endless"]["chips"]["esp32c3"]["images"][0]["size"] = 4 << 20
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
for fw in huge endless; do
    limit=$([ $fw = huge ] && echo 67108864 || echo 4194304)
    # (expect_fail's `timeout 240` stops a hang only, as exit 124: the refusal is the limit's)
    expect_fail 3 "x.bin: larger than the $limit-byte limit; refusing it" "$ESPBENCH" "${F[@]}" --firmware $fw
    one_line $fw
done
[ -z "$(ls -A "$T/cache/espbench" 2>/dev/null | grep -v "^$SHA\$")" ] || { ls -la "$T/cache/espbench"; fail "parts left in the cache"; }

# ---- YAML bombs: refused using under 100 MB (nothing expanded; a hang is stopped at 30 s)
bounded() { # WANT-TEXT CMD...: exit 2, one line holding WANT-TEXT, small
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
want, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
wall = time.monotonic() - t0
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
err = [l for l in p.stderr.splitlines() if l.strip()]
ok = p.returncode == 2 and len(err) == 1 and want in err[0] and rss_mb < 100
print("%s: exit %d in %.2f s, %.0f MB: %s" % ("ok" if ok else "FAIL", p.returncode, wall, rss_mb, err[-1] if err else ""))
sys.exit(0 if ok else 1)
PY
}
mkdir -p "$T/p_huge" "$T/p_deep" "$T/p_laughs" "$T/p_alias"
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
open(t + "/p_huge/x.yaml", "w").write("chip:\n  name: x\n" + "# padding\n" * 300000)
open(t + "/p_deep/x.yaml", "w").write("chip: " + "[" * 100000 + "]" * 100000 + "\n")
lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
for i in range(1, 10):
    lines.append("a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 9)))
open(t + "/p_laughs/x.yaml", "w").write("\n".join(lines) + "\nchip: *a9\n")
open(t + "/p_alias/x.yaml", "w").write("chip: {name: x}\ntiers:\n  - &t {name: a}\n  - *t\n")
for n in ("huge", "deep", "laughs"):
    src = open(t + "/p_%s/x.yaml" % n).read()
    open(t + "/lab_%s.yaml" % n, "w").write(src.replace("chip:", "ap:", 1))
PY
bounded "larger than the 1048576-byte limit for a YAML file" "$ESPBENCH" --profiles "$T/p_huge" profiles list || fail "huge profile"
bounded "nested deeper than the 32 levels" "$ESPBENCH" --profiles "$T/p_deep" profiles list || fail "deep profile"
bounded "YAML anchors (&name) are not accepted here" "$ESPBENCH" --profiles "$T/p_laughs" profiles list || fail "billion laughs profile"
bounded "YAML anchors (&name) are not accepted here" "$ESPBENCH" --profiles "$T/p_alias" profiles list || fail "alias profile"
export ESPBENCH_WIFI_PASSWORD=x
bounded "larger than the 1048576-byte limit for a lab file" "$ESPBENCH" run --lab "$T/lab_huge.yaml" --sim || fail "huge lab"
bounded "nested deeper than the 32 levels" "$ESPBENCH" run --lab "$T/lab_deep.yaml" --sim || fail "deep lab"
bounded "YAML anchors (&name) are not accepted here" "$ESPBENCH" run --lab "$T/lab_laughs.yaml" --sim || fail "billion laughs lab"
echo ok
