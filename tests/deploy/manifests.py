#!/usr/bin/env python3
"""The Kubernetes manifests as a cluster would read them, for tests/deploy/kubernetes_test.sh.

  manifests.py check AGENTS.yaml HOSTNET.yaml FLEET.yaml IMAGE IMAGE_USER
      Checks the rendered kustomizations (kubectl kustomize) against each other and against the
      image: every container names IMAGE; the Service, NetworkPolicy and DaemonSet select the
      same pods; the fleet Job reaches the Service's name and port, the NetworkPolicy admits the
      Job's pods and the agents to the control port and the data ports both sides use; the token
      comes from the Secret through --token-env; every pod runs as IMAGE_USER, non-root, with no
      capabilities, no privilege escalation and a read-only root; the hostNetwork variant is
      hostNetwork, resolves cluster names, and its namespace admits it. One PASS/FAIL line each;
      exit 1 when any failed.
  manifests.py argv RENDERED.yaml KIND ENTRYPOINT_JSON NAME=VALUE...
      The command line the kubelet runs for the first container of the KIND object: the image's
      entrypoint (or the container's command), then its args, with $(NAME) expanded from the
      container's env and the NAME=VALUE given (what fieldRef and secretKeyRef would supply),
      $$ as $, and unknown references left alone, as Kubernetes does. NUL-separated on stdout.
  manifests.py env RENDERED.yaml KIND IMAGE_ENV_JSON NAME=VALUE...
      The environment of that container: the image's Env, then the container's env (a value,
      or for valueFrom the NAME=VALUE given; one not given is an error). NUL-separated.
"""
import json
import re
import sys

import yaml


def load(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def one(docs, kind, name=None):
    found = [d for d in docs if d.get("kind") == kind
             and (name is None or d["metadata"]["name"] == name)]
    if len(found) != 1:
        raise SystemExit(f"expected one {kind}{' ' + name if name else ''}, found {len(found)}")
    return found[0]


def container(obj):
    return obj["spec"]["template"]["spec"]["containers"][0]


def option(args, name):
    """The value of --name=VALUE or --name VALUE in args, or None."""
    for i, a in enumerate(args):
        if a.startswith(f"--{name}="):
            return a.split("=", 1)[1]
        if a == f"--{name}" and i + 1 < len(args):
            return args[i + 1]
    return None


def expand(text, env):
    def sub(m):
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", sub, text)


def argv(path, kind, entrypoint, given):
    c = container(one(load(path), kind))
    env = {e["name"]: e["value"] for e in c.get("env", []) if "value" in e}
    env.update(given)
    words = (c.get("command") or entrypoint) + c.get("args", [])
    sys.stdout.write("\0".join(expand(w, env) for w in words) + "\0")


def environment(path, kind, image_env, given):
    c = container(one(load(path), kind))
    env = dict(e.split("=", 1) for e in image_env)
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = expand(e["value"], env)
        elif e["name"] in given:
            env[e["name"]] = given[e["name"]]
        else:
            raise SystemExit(f"{kind}: no value given for {e['name']} ({json.dumps(e['valueFrom'])})")
    sys.stdout.write("".join(f"{k}={v}\0" for k, v in env.items()))


class Checks:
    def __init__(self):
        self.failed = 0

    def __call__(self, name, ok, detail=""):
        print(("PASS " if ok else "FAIL ") + name + ("" if ok else f" ({detail})"))
        self.failed += 0 if ok else 1


def selects(selector, labels):
    return all(labels.get(k) == v for k, v in selector.items())


def port_range(ports, protocol):
    """(first, last) of each NetworkPolicy port entry of that protocol."""
    return [(p["port"], p.get("endPort", p["port"])) for p in ports if p.get("protocol", "TCP") == protocol]


def covers(ranges, first, last):
    return any(a <= first and last <= b for a, b in ranges)


def dash_range(text):
    first, _, last = text.partition("-")
    return int(first), int(last or first)


def check_pod_security(check, what, obj, user):
    spec = obj["spec"]["template"]["spec"]
    pod, c = spec.get("securityContext", {}), container(obj)
    sc = c.get("securityContext", {})
    check(f"{what}: runs as the image's user {user}, never root",
          pod.get("runAsNonRoot") is True and f"{pod.get('runAsUser')}:{pod.get('runAsGroup')}" == user,
          json.dumps(pod))
    check(f"{what}: no capabilities, no privilege escalation, a read-only root, RuntimeDefault seccomp",
          sc.get("allowPrivilegeEscalation") is False and sc.get("capabilities", {}).get("drop") == ["ALL"]
          and sc.get("readOnlyRootFilesystem") is True
          and pod.get("seccompProfile", {}).get("type") == "RuntimeDefault", json.dumps(sc))
    check(f"{what}: no service account token mounted", spec.get("automountServiceAccountToken") is False)
    env = {e["name"]: e for e in c.get("env", [])}
    variable = option(c.get("args", []), "token-env")
    ref = env.get(variable or "", {}).get("valueFrom", {}).get("secretKeyRef", {})
    check(f"{what}: the token comes from the Secret ipcbench-token through --token-env",
          variable is not None and ref == {"name": "ipcbench-token", "key": "token"}
          and option(c["args"], "token") is None, f"--token-env {variable}, {ref}")
    mounts = {m["mountPath"] for m in c.get("volumeMounts", [])}
    check(f"{what}: a writable /tmp beside the read-only root", "/tmp" in mounts, sorted(mounts))


def check_egress(check, egress, agent_labels, job_labels, control, allowed):
    """The fleet's pods reach the agents' control and data ports and the cluster's DNS only."""
    check("the egress policy applies to the agents and the fleet Job",
          selects(egress["spec"]["podSelector"]["matchLabels"], agent_labels)
          and selects(egress["spec"]["podSelector"]["matchLabels"], job_labels)
          and egress["spec"].get("policyTypes") == ["Egress"])
    rules = egress["spec"]["egress"]
    to_agents = [r for r in rules if all(selects(t.get("podSelector", {}).get("matchLabels", {}), agent_labels)
                                         and "namespaceSelector" not in t and "ipBlock" not in t
                                         for t in r["to"])]
    dns = [r for r in rules if all(t.get("namespaceSelector", {}).get("matchLabels", {}).get(
        "kubernetes.io/metadata.name") == "kube-system" and
        t.get("podSelector", {}).get("matchLabels", {}).get("k8s-app") == "kube-dns" for t in r["to"])]
    ports = [p for r in to_agents for p in r.get("ports", [])]
    check("egress reaches the agents' control port and every data port (TCP and UDP)",
          covers(port_range(ports, "TCP"), control, control) and covers(port_range(ports, "TCP"), *allowed)
          and covers(port_range(ports, "UDP"), *allowed), ports)
    dns_ports = [p for r in dns for p in r.get("ports", [])]
    check("egress reaches the cluster's DNS on port 53 and nothing else beyond the agents",
          covers(port_range(dns_ports, "UDP"), 53, 53) and covers(port_range(dns_ports, "TCP"), 53, 53)
          and len(to_agents) + len(dns) == len(rules) and all(r.get("to") for r in rules),
          json.dumps(rules))


def check(agents_path, hostnet_path, fleet_path, image, user):
    check = Checks()
    agents, hostnet, fleet = load(agents_path), load(hostnet_path), load(fleet_path)
    for name, docs in (("agents", agents), ("agents-host-network", hostnet), ("fleet", fleet)):
        images = {c["image"] for d in docs if "template" in d.get("spec", {})
                  for c in d["spec"]["template"]["spec"]["containers"]}
        check(f"{name}: every container runs the image built ({image})", images == {image}, images)
    ds, svc = one(agents, "DaemonSet"), one(agents, "Service")
    np = one(agents, "NetworkPolicy", "ipcbench-agent")
    egress = one(agents, "NetworkPolicy", "ipcbench-fleet-egress")
    job = one(fleet, "Job")
    agent_labels = ds["spec"]["template"]["metadata"]["labels"]
    job_labels = job["spec"]["template"]["metadata"]["labels"]
    check("the DaemonSet's selector picks its own pods", selects(ds["spec"]["selector"]["matchLabels"], agent_labels))
    check("the headless Service selects the agent pods",
          svc["spec"].get("clusterIP") == "None" and selects(svc["spec"]["selector"], agent_labels))
    check("the NetworkPolicy guards the agent pods, not the Job's",
          selects(np["spec"]["podSelector"]["matchLabels"], agent_labels)
          and not selects(np["spec"]["podSelector"]["matchLabels"], job_labels))
    sources = [f["podSelector"]["matchLabels"] for rule in np["spec"]["ingress"] for f in rule["from"]]
    check("the NetworkPolicy admits the fleet Job's pods and the agents (agent to agent) and no one else",
          all(sources) and any(selects(s, job_labels) for s in sources)
          and any(selects(s, agent_labels) for s in sources)
          and all("namespaceSelector" not in f and "ipBlock" not in f for r in np["spec"]["ingress"] for f in r["from"]))
    ports = [p for rule in np["spec"]["ingress"] for p in rule.get("ports", [])]
    agent_args, job_args = container(ds)["args"], container(job)["args"]
    control = svc["spec"]["ports"][0]["port"]
    bind = option(agent_args, "bind") or ""
    check("the agent listens on the pod's address at the Service's port",
          bind == f"[$(POD_IP)]:{control}", bind)
    allowed = dash_range(option(agent_args, "allow-ports") or "0")
    data = dash_range(option(job_args, "data-port") or "0")
    check("the fleet's --data-port lies within the agents' --allow-ports",
          allowed[0] <= data[0] and data[1] <= allowed[1], f"{data} in {allowed}")
    check("the NetworkPolicy admits the control port and every data port (TCP and UDP)",
          covers(port_range(ports, "TCP"), control, control) and covers(port_range(ports, "TCP"), *allowed)
          and covers(port_range(ports, "UDP"), *allowed), ports)
    check("the fleet Job finds the agents through the Service's name and port",
          option(job_args, "agents") == f"dns:{svc['metadata']['name']}:{control}", option(job_args, "agents"))
    check("the fleet Job writes its JSON to the results claim",
          (option(job_args, "output") or "").startswith("/results/") and option(job_args, "format") == "json"
          and any(v.get("persistentVolumeClaim", {}).get("claimName") == "ipcbench-results"
                  for v in job["spec"]["template"]["spec"]["volumes"])
          and one(fleet, "PersistentVolumeClaim")["metadata"]["name"] == "ipcbench-results")
    check("the agent names its node in a label", option(agent_args, "label") == "node=$(NODE_NAME)")
    check_egress(check, egress, agent_labels, job_labels, control, allowed)
    peers = {e["name"]: e.get("value", "") for e in container(ds).get("env", [])}
    check("the agents run cases against each other only inside IPCBENCH_PEER_NETWORKS (--allow-peer)",
          option(agent_args, "allow-peer") == "$(IPCBENCH_PEER_NETWORKS)"
          and peers.get("IPCBENCH_PEER_NETWORKS", "").startswith("10.0.0.0/8"),
          peers.get("IPCBENCH_PEER_NETWORKS"))
    for what, obj in (("the agent", ds), ("the fleet Job", job)):
        check_pod_security(check, what, obj, user)
    check("the agents' namespace enforces the restricted Pod Security profile",
          one(agents, "Namespace")["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "restricted")
    hds = one(hostnet, "DaemonSet")["spec"]["template"]["spec"]
    hns = one(hostnet, "Namespace")
    check("agents-host-network: on the node's network, resolving cluster names, in a namespace that admits it",
          hds.get("hostNetwork") is True and hds.get("dnsPolicy") == "ClusterFirstWithHostNet"
          and hns["metadata"]["labels"].get("pod-security.kubernetes.io/enforce") == "privileged")
    check("agents-host-network: only its own namespace (not ipcbench) is privileged, and it holds all it makes",
          hns["metadata"]["name"] not in ("ipcbench", "") and
          all(d["metadata"].get("namespace") == hns["metadata"]["name"] for d in hostnet if d["kind"] != "Namespace"),
          hns["metadata"]["name"])
    return 1 if check.failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "check":
        sys.exit(check(*sys.argv[2:7]))
    if len(sys.argv) >= 5 and sys.argv[1] == "env":
        environment(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]),
                    dict(a.split("=", 1) for a in sys.argv[5:]))
        sys.exit(0)
    if len(sys.argv) >= 5 and sys.argv[1] == "argv":
        argv(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]),
             dict(a.split("=", 1) for a in sys.argv[5:]))
        sys.exit(0)
    sys.exit(__doc__)
