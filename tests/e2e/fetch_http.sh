#!/usr/bin/env bash
# Firmware by URL from a real HTTP server on 127.0.0.1 into the XDG cache:
# a good download is flashed; a 404, a tampered file and a file truncated on
# the server fail with one line and exit 3 (the bad download is deleted); a
# connection cut mid-body keeps the partial file and the next run resumes it
# with a range request; file:// URLs work too.
source "$(dirname "$0")/lib/flash_helpers.sh"
export XDG_CACHE_HOME="$T/cache"

mkdir -p "$T/www" "$T/fw"
mkimage esp32c3 "$T/www/app.bin" 120000 app
mkimage esp32c3 "$T/www/other.bin" 120000 other
head -c 60000 "$T/www/app.bin" >"$T/www/short.bin"
cp "$T/www/other.bin" "$T/www/tampered.bin"
sha() { sha256sum "$1" | cut -d' ' -f1; }
APP_SHA=$(sha "$T/www/app.bin")

# A small HTTP/1.1 server with range support; /cut/NAME sends half the body on
# its first request and then drops the connection.
cat >"$T/server.py" <<'PY'
import http.server, os, sys
root, log = sys.argv[2], open(sys.argv[3], "a", buffering=1)
cut_done = set()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        kind, _, name = self.path.strip("/").partition("/")
        rng = self.headers.get("Range", "")
        log.write(f"{self.path} {rng}\n")
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
        data = open(path, "rb").read()
        start = int(rng[6:].split("-")[0]) if rng.startswith("bytes=") else 0
        body = data[start:]
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data)-1}/{len(data)}")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if kind == "cut" and name not in cut_done:
            cut_done.add(name)
            self.wfile.write(body[: len(body) // 2]); self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.wfile.write(body)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
HP=$(free_port)
python3 "$T/server.py" "$HP" "$T/www" "$T/http.log" &
PIDS+=($!)
for _ in $(seq 600); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$HP),0.2).close()" 2>/dev/null && break; sleep 0.05; done
U="http://127.0.0.1:$HP"

entry() { # name url sha
    printf '"%s": {"chips": {"esp32c3": {"images": [{"offset": "0x10000", "url": "%s", "sha256": "%s", "size": 1000000}]}}}' "$1" "$2" "$3"
}
cat >"$T/fw/manifest.json" <<JSON
{"schema": 1, "firmware": {
  $(entry good "$U/files/app.bin" "$APP_SHA"),
  $(entry missing "$U/files/nope.bin" "$APP_SHA"),
  $(entry tampered "$U/files/tampered.bin" "$APP_SHA"),
  $(entry short "$U/files/short.bin" "$APP_SHA"),
  $(entry cut "$U/cut/app.bin" "$APP_SHA"),
  $(entry local "file://$T/www/app.bin" "$APP_SHA")
}}
JSON

start_vboard b esp32c3 --no-baud-timing
F=(flash --port "$T/b.tty" --manifest "$T/fw/manifest.json")

expect_fail 3 "$U/files/nope.bin: HTTP 404; check the URL in the manifest" "$ESPBENCH" "${F[@]}" --firmware missing
expect_fail 3 "$U/files/tampered.bin: sha256 $(sha "$T/www/tampered.bin") does not match the expected $APP_SHA; the download was deleted" \
    "$ESPBENCH" "${F[@]}" --firmware tampered
expect_fail 3 "$U/files/short.bin: sha256 $(sha "$T/www/short.bin") does not match the expected $APP_SHA; the download was deleted" \
    "$ESPBENCH" "${F[@]}" --firmware short
[ -z "$(ls -A "$T/cache/espbench")" ] || { ls -la "$T/cache/espbench"; fail "bad downloads left in the cache"; }

# Cut mid-body: the part stays, the second run resumes from where it stopped.
expect_fail 3 "download interrupted after 60000 bytes" "$ESPBENCH" "${F[@]}" --firmware cut
[ "$(stat -c %s "$T/cache/espbench/$APP_SHA.part")" = 60000 ] || fail "partial download not kept"
timeout 240 "$ESPBENCH" "${F[@]}" --firmware cut >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "resume failed"; }
grep -qx "/cut/app.bin bytes=60000-" "$T/http.log" || { cat "$T/http.log"; fail "no range request"; }
[ -f "$T/cache/espbench/$APP_SHA" ] || fail "not cached under its sha256"
flash_matches "$T/b.flash" $((0x10000)) "$T/www/app.bin"

# Cached now: the good entry needs no download and the flash is unchanged.
lines=$(wc -l <"$T/http.log")
timeout 240 "$ESPBENCH" "${F[@]}" --firmware good >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "good"; }
[ "$(wc -l <"$T/http.log")" = "$lines" ] || fail "cached file fetched again"
grep -q "(0 written, 1 unchanged)" "$T/out" || { cat "$T/out"; fail "not skipped"; }

rm -rf "$T/cache"
timeout 240 "$ESPBENCH" "${F[@]}" --firmware local >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "file:// url"; }
expect_fail 2 "no firmware 'nosuch' (known: good, missing, tampered, short, cut, local)" "$ESPBENCH" "${F[@]}" --firmware nosuch
echo ok
