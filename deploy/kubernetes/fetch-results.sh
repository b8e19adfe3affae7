#!/usr/bin/env bash
# Copies the fleet runs' JSON files from the ipcbench-results claim to DEST (default ./results):
# a short-lived pod of the fleet Job's image mounts the claim read-only on the node the Job's pod
# ran on (the claim is ReadWriteOnce), `kubectl cp` takes the files (busybox tar in the image),
# and the pod is deleted. Then: ipchost report DEST/FILE.json --output fleet.html
#
# Usage: deploy/kubernetes/fetch-results.sh [DEST]     (IPCBENCH_NAMESPACE: default ipcbench)
set -euo pipefail
dest="${1:-results}"
ns="${IPCBENCH_NAMESPACE:-ipcbench}"
pod="ipcbench-results-$$"
command -v kubectl >/dev/null || { echo "fetch-results: kubectl is missing" >&2; exit 1; }

job_field() {  # job_field JSONPATH: a field of the fleet Job's pod template
  kubectl -n "$ns" get job ipcbench-fleet -o "jsonpath={.spec.template.spec.$1}"
}
image="$(job_field 'containers[0].image')"
[ -n "$image" ] || { echo "fetch-results: no job ipcbench-fleet in namespace $ns (kubectl apply -k deploy/kubernetes/fleet)" >&2; exit 1; }
node="$(kubectl -n "$ns" get pods -l job-name=ipcbench-fleet -o 'jsonpath={.items[0].spec.nodeName}' 2>/dev/null || true)"

# The pod: the same user and restrictions as the Job (the namespace enforces the restricted
# Pod Security profile), the claim read-only, on the Job's node when it is known.
on_node=""
[ -z "$node" ] || on_node="\"nodeName\": \"$node\","
overrides="$(cat <<EOF
{
  "apiVersion": "v1",
  "spec": {
    $on_node
    "automountServiceAccountToken": false,
    "securityContext": {"runAsNonRoot": true, "runAsUser": 10001, "runAsGroup": 10001,
                        "seccompProfile": {"type": "RuntimeDefault"}},
    "volumes": [{"name": "results",
                 "persistentVolumeClaim": {"claimName": "ipcbench-results", "readOnly": true}}],
    "containers": [{
      "name": "$pod",
      "image": "$image",
      "command": ["sleep", "600"],
      "securityContext": {"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
                          "capabilities": {"drop": ["ALL"]}},
      "volumeMounts": [{"name": "results", "mountPath": "/results", "readOnly": true}]
    }]
  }
}
EOF
)"
kubectl -n "$ns" run "$pod" --image="$image" --restart=Never --overrides="$overrides" >/dev/null
trap 'kubectl -n "$ns" delete pod "$pod" --wait=false >/dev/null 2>&1 || true' EXIT
kubectl -n "$ns" wait --for=condition=Ready "pod/$pod" --timeout=120s >/dev/null
mkdir -p "$dest"
kubectl -n "$ns" cp "$pod:/results" "$dest"
echo "fetch-results: in $dest:"
ls -l "$dest"
