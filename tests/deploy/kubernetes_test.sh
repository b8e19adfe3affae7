#!/usr/bin/env bash
# The Kubernetes path, tested as far as a machine without a cluster or a container runtime
# can (deploy/kubernetes/README.md says what is left):
#
#   kubernetes_test.sh manifests SOURCE_DIR
#     the kustomizations render with the kubectl on PATH, and what they render fits together
#     (tests/deploy/manifests.py check) and names the image deploy/image/build.sh makes;
#     fetch-results.sh asks kubectl for a reader pod the namespace admits (a stand-in kubectl
#     records the calls).
#   kubernetes_test.sh image BUILD_DIR SOURCE_DIR          (root, buildah, iproute2, dnsmasq)
#     the image is built from BUILD_DIR and read back from its OCI archive (user, entrypoint,
#     labels, owners and modes of its files); then its root file system plays a small cluster:
#     three "nodes" (network namespaces on a bridge) each run the DaemonSet's command line, as
#     the kubelet would expand it, as uid 10001 on a read-only root; a fourth runs the fleet
#     Job's command line, finding the agents through a DNS server of the test's own that answers
#     for the headless Service's name the way cluster DNS does. The fleet's JSON must hold every
#     ordered pair of the three, measured, each row naming its nodes.
# Exits 77 (skipped) when it cannot run here: not root, or a tool missing.
set -euo pipefail
mode="${1:-}"
passed=0
failed=0
check() {  # check NAME COMMAND...
  local name="$1"
  shift
  if "$@"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name"
    failed=$((failed + 1))
  fi
}
finish() {
  echo "kubernetes-test ($mode): $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
work="$(mktemp -d)"
pids=()
namespaces=()
image_tag=""
teardown() {
  # Each background process leads a process group of its own (setsid): the whole group is
  # killed, since neither signal gets through otherwise. `unshare --fork` ignores SIGTERM while
  # it waits, and its --kill-child is a parent-death signal, which the kernel clears when
  # chroot --userspec changes the pod's user, so the agent would outlive it.
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -KILL -- "-$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}
cleanup() {
  teardown
  for ns in "${namespaces[@]:-}"; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true; done
  [ -n "$image_tag" ] && buildah rmi "$image_tag" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

render() {  # render SOURCE_DIR: the three kustomizations into $work/*.yaml
  local k="$1/deploy/kubernetes"
  kubectl kustomize "$k/agents" >"$work/agents.yaml" &&
    kubectl kustomize "$k/agents-host-network" >"$work/hostnet.yaml" 2>"$work/hostnet.err" &&
    kubectl kustomize "$k/fleet" >"$work/fleet.yaml"
}

manifests_mode() {
  local src="$1"
  command -v kubectl >/dev/null ||
    { echo "FAIL kubectl is missing (scripts/install-deps.sh --test installs kubernetes-client)"; exit 1; }
  check "the three kustomizations render ($(kubectl version --client 2>/dev/null | head -1))" render "$src"
  local tag
  tag="$("$src/deploy/image/build.sh" --print-tag)"
  python3 "$src/tests/deploy/manifests.py" check "$work/agents.yaml" "$work/hostnet.yaml" \
    "$work/fleet.yaml" "$tag" 10001:10001 && passed=$((passed + 1)) || failed=$((failed + 1))
  fetch_results "$src"
}

# fetch-results.sh against a stand-in kubectl: the reader pod it asks for.
fetch_results() {
  local src="$1" bin="$work/fakebin"
  mkdir -p "$bin"
  cat >"$bin/kubectl" <<'EOF'
#!/usr/bin/env bash
echo "$*" >>"$KUBECTL_LOG"
case "$*" in
  *"get job ipcbench-fleet"*) printf 'registry.example/ipcbench:9' ;;
  *"get pods -l job-name=ipcbench-fleet"*) printf 'node-7' ;;
  *" run "*) for a in "$@"; do case "$a" in --overrides=*) printf '%s' "${a#--overrides=}" >"$KUBECTL_LOG.pod" ;; esac; done ;;
  *" cp "*) mkdir -p "${@: -1}" && echo '{}' >"${@: -1}/ipcbench-fleet-x.json" ;;
esac
EOF
  chmod +x "$bin/kubectl"
  KUBECTL_LOG="$work/kubectl.log" PATH="$bin:$PATH" "$src/deploy/kubernetes/fetch-results.sh" \
    "$work/fetched" >/dev/null
  check "fetch-results: the files copied from the reader pod" test -s "$work/fetched/ipcbench-fleet-x.json"
  check "fetch-results: the reader pod runs the Job's image on the Job's node, the claim read-only, restricted" \
    python3 - "$work/kubectl.log.pod" <<'EOF'
import json, sys
pod = json.load(open(sys.argv[1]))["spec"]
c = pod["containers"][0]
claim = pod["volumes"][0]["persistentVolumeClaim"]
ok = (pod["nodeName"] == "node-7" and c["image"] == "registry.example/ipcbench:9"
      and claim == {"claimName": "ipcbench-results", "readOnly": True}
      and c["volumeMounts"][0]["readOnly"] is True and pod["securityContext"]["runAsNonRoot"] is True
      and c["securityContext"]["capabilities"]["drop"] == ["ALL"]
      and c["securityContext"]["allowPrivilegeEscalation"] is False)
sys.exit(0 if ok else 1)
EOF
  check "fetch-results: the reader pod is deleted" grep -q "delete pod ipcbench-results-" "$work/kubectl.log"
}

# ---- image mode ----

oci_blob() {  # oci_blob OCI_DIR WHAT: the path of the config or the (one) layer
  python3 - "$1" "$2" <<'EOF'
import json, sys
d, what = sys.argv[1], sys.argv[2]
blob = lambda digest: f"{d}/blobs/" + digest.replace(":", "/")
manifest = json.load(open(blob(json.load(open(f"{d}/index.json"))["manifests"][0]["digest"])))
assert len(manifest["layers"]) == 1, "one layer expected"
print(blob(manifest["config"]["digest"] if what == "config" else manifest["layers"][0]["digest"]))
EOF
}

config_is() {  # config_is JQ_FILTER: true when the image config satisfies it
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['config']; sys.exit(0 if eval(sys.argv[2]) else 1)" \
    "$work/config.json" "$1"
}

build_image() {
  local build="$1" src="$2" version
  version="$("$build/bin/ipchost" --version | awk '{print $2}')"
  image_tag="localhost/ipcbench-test-$$:$version"
  "$src/deploy/image/build.sh" --build-dir "$build" --tag "$image_tag" --oci-archive "$work/image.tar"
  mkdir -p "$work/oci" "$work/rootfs"
  tar -C "$work/oci" -xf "$work/image.tar"
  cp "$(oci_blob "$work/oci" config)" "$work/config.json"
  tar -C "$work/rootfs" --numeric-owner -xzpf "$(oci_blob "$work/oci" layer)"
  check "image: runs as 10001:10001, entrypoint ipchost, port 7451/tcp" \
    config_is "c['User'] == '10001:10001' and c['Entrypoint'] == ['/usr/bin/ipchost'] and '7451/tcp' in c['ExposedPorts']"
  check "image: labelled with ipchost's version ($version)" \
    config_is "c['Labels']['org.opencontainers.image.version'] == '$version'"
  if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
    check "image: labelled with the checkout's revision" \
      config_is "c['Labels']['org.opencontainers.image.revision'] == '$(git -C "$src" rev-parse HEAD)'"
  fi
  local r="$work/rootfs"
  check "image: every file root's, but the user's home" \
    test -z "$(find "$r" ! -uid 0 ! -path "$r/home/ipcbench")"
  check "image: nothing writable by others but /tmp" \
    test -z "$(find "$r" -perm -o+w ! -type l ! -path "$r/tmp")"
  check "image: the five plugins, no kits" \
    test "$(find "$r/usr/lib/ipcbench/plugins" -name 'ipcb-*.so' | wc -l)" = 5 -a ! -e "$r/usr/lib/ipcbench/kits"
  mkdir -p "$r/results"  # the claim's mount point (a runtime makes it)
}

image_env() { python3 -c "import json; print(json.dumps(json.load(open('$work/config.json'))['config']['Env']))"; }

# in_image NETNS NAME RESOLV RESULTS KIND RENDERED [NAME=VALUE...]: runs the KIND's container of
# RENDERED, its command line and environment as the kubelet would make them, in the image's root
# in NETNS, in the background (its pid in pids[]). The argv file may be edited first by the
# caller through $work/NAME.argv.
in_image_prepare() {  # in_image_prepare NAME KIND RENDERED [NAME=VALUE...]
  local name="$1" kind="$2" rendered="$3"
  shift 3
  python3 "$src/tests/deploy/manifests.py" argv "$rendered" "$kind" \
    "$(python3 -c "import json; print(json.dumps(json.load(open('$work/config.json'))['config']['Entrypoint']))")" \
    "$@" >"$work/$name.argv"
  python3 "$src/tests/deploy/manifests.py" env "$rendered" "$kind" "$(image_env)" "$@" >"$work/$name.env"
}
in_image_start() {  # in_image_start NETNS NAME RESOLV RESULTS
  local ns="$1" name="$2"
  setsid ip netns exec "$ns" unshare --mount --pid --fork --kill-child \
    "$src/tests/deploy/run-in-rootfs.sh" "$work/rootfs" "$work/mnt-$name" 10001:10001 \
    "$work/$name.env" "$work/$name.argv" "$3" "$4" >"$work/$name.log" 2>&1 &
  pids+=($!)
}

net="10.206.$((RANDOM % 250))"  # the test's cluster network
cluster() {
  local tag="ipck$$" token agents=3
  ip netns add "$tag-sw"
  namespaces+=("$tag-sw")
  ip -n "$tag-sw" link add br0 type bridge
  ip -n "$tag-sw" link set br0 up
  addr_of() { if [ "$1" = 0 ]; then echo "$net.100"; else echo "$net.$1"; fi; }
  for i in $(seq 0 "$agents"); do
    ip netns add "$tag-$i"
    namespaces+=("$tag-$i")
    ip link add "${tag}h$i" type veth peer name "${tag}s$i"
    ip link set "${tag}h$i" netns "$tag-$i"
    ip link set "${tag}s$i" netns "$tag-sw"
    ip -n "$tag-sw" link set "${tag}s$i" master br0 up
    ip -n "$tag-$i" addr add "$(addr_of "$i")/24" dev "${tag}h$i"
    ip -n "$tag-$i" link set lo up
    ip -n "$tag-$i" link set "${tag}h$i" up
  done
  token="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  # The DaemonSet's pods, one a node.
  for i in $(seq 1 "$agents"); do
    in_image_prepare "agent$i" DaemonSet "$work/agents.yaml" "POD_IP=$(addr_of "$i")" \
      "NODE_NAME=node-$i" "IPCBENCH_TOKEN=$token"
    in_image_start "$tag-$i" "agent$i" - -
  done
  # Cluster DNS: the headless Service's name answers with every agent's address.
  local fqdn="ipcbench-agents.ipcbench.svc.cluster.local"
  for i in $(seq 1 "$agents"); do echo "$(addr_of "$i") $fqdn"; done >"$work/cluster.hosts"
  setsid ip netns exec "$tag-0" dnsmasq --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts \
    --no-poll --listen-address=127.0.0.1 --bind-interfaces --addn-hosts="$work/cluster.hosts" \
    --user=root --group=root --pid-file= >"$work/dnsmasq.log" 2>&1 &
  pids+=($!)
  printf 'search ipcbench.svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\noptions ndots:5\n' \
    >"$work/resolv.conf"
  for i in $(seq 1 "$agents"); do
    for _ in $(seq 100); do
      ip netns exec "$tag-0" bash -c "exec 3<>/dev/tcp/$(addr_of "$i")/7451" 2>/dev/null && break
      sleep 0.1
    done
  done
  check "agents: each DaemonSet pod serves as uid 10001" agents_run_as 10001 "$agents"
  # The Job's pod, its case options (from --plugin on) as the manifest has them but shorter.
  mkdir -p "$work/results"
  chown 10001:10001 "$work/results"
  in_image_prepare fleet Job "$work/fleet.yaml" POD_NAME=ipcbench-fleet-test "IPCBENCH_TOKEN=$token"
  python3 - "$work/fleet.argv" <<'EOF'
import sys
path = sys.argv[1]
words = open(path).read().split("\0")[:-1]
short = {"--duration": "0.2", "--warmup": "0.05"}
words = [w.split("=")[0] + "=" + short[w.split("=")[0]] if w.split("=")[0] in short else w for w in words]
open(path, "w").write("\0".join(words) + "\0")
EOF
  in_image_start "$tag-0" fleet "$work/resolv.conf" "$work/results"
  local fleet_pid="${pids[-1]}"
  local deadline=$((SECONDS + 120))
  while kill -0 "$fleet_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
  kill -KILL -- "-$fleet_pid" 2>/dev/null || true
  sed 's/^/     fleet: /' "$work/fleet.log" | grep -v "^     fleet: \[info\] fleet: round" | head -20
  local out="$work/results/ipcbench-fleet-test.json"
  check "fleet: the Job's JSON is on the claim, named after its pod, the user's" \
    test -s "$out" -a "$(stat -c %u "$out" 2>/dev/null)" = 10001
  [ -s "$out" ] || return 0
  check "fleet: the roll call found the three agents behind the Service's name" \
    grep -q "roll call: 3 of 3 agents answered" "$work/fleet.log"
  check "fleet: every ordered pair, each with every case of the Job (2 transports, 2 sizes, both modes), measured" \
    python3 - "$out" "$net" <<'EOF'
import json, sys
from collections import Counter
rows = json.load(open(sys.argv[1]))["results"]
net = sys.argv[2]
pairs = Counter((r["fleet"]["source"], r["fleet"]["destination"]) for r in rows)
agents = {f"{net}.{i}:7451" for i in (1, 2, 3)}
ok = set(pairs) == {(a, b) for a in agents for b in agents if a != b} and set(pairs.values()) == {8}
for r in rows:
    ok &= r["status"] == "ok"
    i = r.get("integrity", {})
    if r["transport"] == "socket.tcp" and r["mode"] == "throughput":
        ok &= i["messages_sent"] > 0 and i["messages_received"] == i["messages_sent"]
if not ok:
    print(json.dumps([(r["fleet"]["source"], r["fleet"]["destination"], r["transport"], r["mode"], r["status"], r.get("error", "")) for r in rows], indent=0))
sys.exit(0 if ok else 1)
EOF
  check "fleet: each row names the nodes the agents said they run on (serve --label from the downward API)" \
    python3 - "$out" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
node = lambda addr: "node-" + addr.split(":")[0].rsplit(".", 1)[1]
sys.exit(0 if all(r["fleet"]["source_labels"] == {"node": node(r["fleet"]["source"])}
                  and r["fleet"]["destination_labels"] == {"node": node(r["fleet"]["destination"])}
                  for r in rows) else 1)
EOF
}

agents_run_as() {  # agents_run_as UID N: N agent processes, each running as UID
  local n=0 uid
  for p in $(pgrep -f "^/usr/bin/ipchost serve --bind=\[$net" || true); do
    uid="$(awk '/^Uid:/ {print $2}' "/proc/$p/status")"
    [ "$uid" = "$1" ] || return 1
    n=$((n + 1))
  done
  [ "$n" = "$2" ]
}

image_mode() {
  build="$1" src="$2"
  if [ "$(id -u)" != 0 ]; then echo "kubernetes-test: skipped (needs root)"; exit 77; fi
  for tool in buildah ip dnsmasq kubectl unshare chroot python3; do
    command -v "$tool" >/dev/null || { echo "kubernetes-test: skipped ($tool is missing: scripts/install-deps.sh --test)"; exit 77; }
  done
  render "$src"
  build_image "$build" "$src"
  cluster
  teardown
  check "teardown: no agent, worker or DNS server of the test's pods is left" \
    test -z "$(pgrep -f -- "ipchost serve --bind=\[$net\.|cluster.hosts" || true)"
}

case "$mode" in
manifests) manifests_mode "$2" ;;
image) image_mode "$2" "$3" ;;
*) echo "usage: kubernetes_test.sh manifests SOURCE_DIR | image BUILD_DIR SOURCE_DIR" >&2; exit 2 ;;
esac
finish
