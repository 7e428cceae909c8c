#!/usr/bin/env bash
# Builds the espbench firmware for every chip and writes the firmware manifest
# (firmware/manifest.json) that `espbench flash --firmware espbench` and
# `espbench run` read. Needs an ESP-IDF (v5.1 or later) environment: run
# `. $IDF_PATH/export.sh` first. Images go to firmware/images/espbench/<chip>/.
#
# usage: scripts/build-firmware.sh [CHIP...]     (default: every chip the firmware supports)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fw="$top/firmware"
chips=("$@")
[ ${#chips[@]} -gt 0 ] || chips=(esp32 esp32s2 esp32s3 esp32c2 esp32c3 esp32c5 esp32c6 esp32c61)

if ! command -v idf.py >/dev/null 2>&1; then
  echo "build-firmware: idf.py not found; run '. \$IDF_PATH/export.sh' (ESP-IDF v5.1 or later) first" >&2
  exit 2
fi

for chip in "${chips[@]}"; do
  [ -f "$fw/sdkconfig.defaults.$chip" ] || { echo "build-firmware: no firmware/sdkconfig.defaults.$chip (the firmware does not support $chip)" >&2; exit 2; }
  build="$fw/build-$chip"
  # ESP-IDF reads sdkconfig.defaults and then sdkconfig.defaults.<target> by itself.
  idf.py -C "$fw" -B "$build" -DIDF_TARGET="$chip" -DSDKCONFIG="$build/sdkconfig" build
  out="$fw/images/espbench/$chip"
  rm -rf "$out" && mkdir -p "$out"
  python3 - "$build" "$out" <<'PY'
import json, shutil, sys, os
build, out = sys.argv[1], sys.argv[2]
args = json.load(open(os.path.join(build, "flasher_args.json")))
for offset, rel in args["flash_files"].items():
    shutil.copy(os.path.join(build, rel), os.path.join(out, os.path.basename(rel)))
json.dump(args["flash_files"], open(os.path.join(out, "flash_files.json"), "w"), indent=1)
PY
done

# The manifest lists every chip built so far, with each image's SHA-256.
python3 - "$fw" <<'PY'
import hashlib, json, os, sys
fw = sys.argv[1]
root = os.path.join(fw, "images", "espbench")
chips = {}
for chip in sorted(os.listdir(root)):
    files = json.load(open(os.path.join(root, chip, "flash_files.json")))
    images = []
    for offset, rel in sorted(files.items(), key=lambda kv: int(kv[0], 16)):
        path = os.path.join("images", "espbench", chip, os.path.basename(rel))
        digest = hashlib.sha256(open(os.path.join(fw, path), "rb").read()).hexdigest()
        images.append({"offset": offset, "file": path, "sha256": digest})
    chips[chip] = {"images": images}
manifest = {"schema": 1, "firmware": {"espbench": {
    "description": "espbench firmware: buffer tiers switch at run time", "chips": chips}}}
with open(os.path.join(fw, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
print("build-firmware: wrote firmware/manifest.json for", ", ".join(chips))
PY
