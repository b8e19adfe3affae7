#!/usr/bin/env bash
# The protocol's generated files follow its definition (scripts/protocol/generate.py):
#  1. in this tree, every generated file is what protocol/worker-protocol.json gives;
#  2. in a copy, a field added to one message makes --check fail naming the host's structs, every
#     kit's table and the schema; generating then writes the field into each, and --check passes.
set -euo pipefail
root="$1"
gen="$root/scripts/protocol/generate.py"
python3 "$gen" --check --root "$root"
copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
( cd "$root" && git ls-files -z protocol scripts/protocol host/model/generated host/control/generated \
    kits/go/ipcbench/protocol_generated.go kits/python/ipcbench_kit/protocol_generated.py \
    kits/java/src/ipcbench/kit/ProtocolGenerated.java kits/dotnet/src/ProtocolGenerated.cs \
    docs/worker-protocol/messages.schema.json docs/result.schema.json | xargs -0 cp --parents -t "$copy" )
python3 - "$copy/protocol/worker-protocol.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
hello = next(m for m in d["messages"] if m["kind"] == "hello")
hello["fields"].append({"name": "drift_probe_field", "type": "optional_text", "max_length": 9, "since": "1.1"})
case = next(o for o in d["objects"] if o["name"] == "case_settings")
case["fields"].append({"name": "drift_probe_setting", "type": "count", "min": 0, "max": 9, "cpp_type": "int",
                       "cpp_default": "7"})
json.dump(d, open(p, "w"))
PY
if out="$(python3 "$gen" --check --root "$copy")"; then
  echo "drift: --check passed on a definition with a new field"; exit 1
fi
for f in host/control/generated/message_structs.hpp kits/go/ipcbench/protocol_generated.go \
  kits/python/ipcbench_kit/protocol_generated.py kits/java/src/ipcbench/kit/ProtocolGenerated.java \
  kits/dotnet/src/ProtocolGenerated.cs docs/worker-protocol/messages.schema.json \
  host/model/generated/model_structs.hpp host/model/generated/case_fields.hpp docs/result.schema.json; do
  grep -q "^$f differs" <<<"$out" || { echo "drift: --check did not name $f:"; echo "$out"; exit 1; }
done
python3 "$gen" --root "$copy" >/dev/null
python3 "$gen" --check --root "$copy"
for f in host/control/generated/message_structs.hpp kits/go/ipcbench/protocol_generated.go \
  kits/python/ipcbench_kit/protocol_generated.py kits/java/src/ipcbench/kit/ProtocolGenerated.java \
  kits/dotnet/src/ProtocolGenerated.cs docs/worker-protocol/messages.schema.json; do
  grep -q drift_probe_field "$copy/$f" || { echo "drift: $f lacks the new field"; exit 1; }
done
# A new setting: the host's struct member (with its default), its field list, the result schema.
grep -q "int drift_probe_setting = 7;" "$copy/host/model/generated/model_structs.hpp" ||
  { echo "drift: the case_settings struct lacks the new setting"; exit 1; }
for f in host/model/generated/case_fields.hpp docs/result.schema.json \
  docs/worker-protocol/messages.schema.json kits/go/ipcbench/protocol_generated.go; do
  grep -q drift_probe_setting "$copy/$f" || { echo "drift: $f lacks the new setting"; exit 1; }
done
echo "drift: generated files follow the definition"
