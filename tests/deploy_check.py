#!/usr/bin/env python3
"""Checks the files of deploy/ (docs/cluster.md) without a cluster.

The Kubernetes manifests parse as YAML (python3-yaml) and have the shape
the docs promise (Jobs, restart policy, the shared claim mounted, resource
requests; an Indexed Job's ranks: WORLD_SIZE, RANK from the completion
index, rank 0's name in a headless Service); the Slurm scripts pass `bash -n`; the Dockerfile starts from
Debian 12 and runs the repository's install and build scripts; and every
`volkhv` command line in them names a real command whose every --flag that
command's --help lists. Usage:
  deploy_check.py --binary build/volkhv --deploy deploy
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

import yaml

failures = []


def fail(where, what):
    failures.append(f"{where}: {what}")


def help_flags(binary, command, cache={}):
    if command not in cache:
        run = subprocess.run([binary, command, "--help"], capture_output=True,
                             text=True, timeout=60)
        if run.returncode != 0:
            cache[command] = None
        else:
            cache[command] = set(re.findall(r"--[a-z][a-z0-9-]*",
                                            run.stdout + run.stderr))
    return cache[command]


def check_command(binary, where, argv):
    """argv: the volkhv arguments (command first)."""
    if not argv:
        return fail(where, "a volkhv call without a command")
    known = help_flags(binary, argv[0])
    if known is None:
        return fail(where, f"'volkhv {argv[0]} --help' fails: no such command")
    for arg in argv[1:]:
        if arg.startswith("--"):
            flag = arg.split("=", 1)[0]
            if flag not in known:
                fail(where, f"volkhv {argv[0]}: unknown flag {flag}")
    return None


def check_headless_service(path, service):
    """A Service in deploy/ only names pods (the ranks' rendezvous)."""
    spec = service["spec"]
    if spec.get("clusterIP") != "None":
        fail(path, f"Service {service['metadata']['name']}: not headless")
    if not spec.get("publishNotReadyAddresses"):
        fail(path, f"Service {service['metadata']['name']}: ranks must "
             "resolve before they are ready (publishNotReadyAddresses)")


def check_ranks(path, job, services):
    """An Indexed Job runs `volkhv train` ranks: one per completion index,
    WORLD_SIZE of them, meeting at rank 0's name in a headless Service."""
    spec = job["spec"]
    name = job["metadata"]["name"]
    pod = spec["template"]["spec"]
    n = spec.get("completions")
    if n is None or spec.get("parallelism") != n:
        fail(path, "an Indexed Job's ranks must all run at once "
             "(parallelism == completions)")
    labels = spec["template"]["metadata"].get("labels", {})
    domain = pod.get("subdomain")
    matching = [s for s in services if s["metadata"]["name"] == domain]
    if not matching:
        fail(path, f"subdomain {domain!r} is not a Service of this file")
    elif any(labels.get(k) != v for k, v in
             matching[0]["spec"].get("selector", {}).items()):
        fail(path, f"Service {domain} does not select the Job's pods")
    for c in pod["containers"]:
        env = {e["name"]: e for e in c.get("env", [])}
        if env.get("WORLD_SIZE", {}).get("value") != str(n):
            fail(path, f"container {c['name']}: WORLD_SIZE is not {n}")
        index = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
        if env.get("RANK", {}).get("valueFrom", {}).get(
                "fieldRef", {}).get("fieldPath") != index:
            fail(path, f"container {c['name']}: RANK is not the completion index")
        if env.get("MASTER_ADDR", {}).get("value") != f"{name}-0.{domain}":
            fail(path, f"container {c['name']}: MASTER_ADDR is not rank 0, "
                 f"{name}-0.{domain}")
        args = [str(a) for a in c.get("args", [])]
        if "--batch" in args and int(args[args.index("--batch") + 1]) % n:
            fail(path, f"container {c['name']}: --batch is not a multiple "
                 f"of the {n} ranks")


def check_manifest(binary, path):
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if not docs:
        fail(path, "no YAML document")
    calls = 0
    for doc in docs:
        kind = doc.get("kind")
        if kind == "PersistentVolumeClaim":
            if "ReadWriteMany" not in doc["spec"].get("accessModes", []):
                fail(path, "the run volume must be ReadWriteMany")
            continue
        if kind == "Service":
            check_headless_service(path, doc)
            continue
        if kind not in ("Job", "Deployment"):
            fail(path, f"unexpected kind {kind}")
            continue
        pod = doc["spec"]["template"]["spec"]
        if doc["spec"].get("completionMode") == "Indexed":
            check_ranks(path, doc, [d for d in docs if d.get("kind") == "Service"])
        if kind == "Job" and pod.get("restartPolicy") not in ("OnFailure",
                                                              "Never"):
            fail(path, "a Job's pods need restartPolicy OnFailure or Never")
        claims = {v["name"]: v.get("persistentVolumeClaim", {}).get("claimName")
                  for v in pod.get("volumes", [])}
        for c in pod["containers"]:
            requests = c.get("resources", {}).get("requests", {})
            if "cpu" not in requests or "memory" not in requests:
                fail(path, f"container {c['name']}: no cpu/memory requests")
            for m in c.get("volumeMounts", []):
                if claims.get(m["name"]) != "volkhv-run":
                    fail(path, f"mount {m['name']} is not the volkhv-run claim")
            argv = list(c.get("command", [])) + [str(a) for a in c.get("args", [])]
            if argv and argv[0].endswith("/volkhv"):
                calls += 1
                check_command(binary, f"{path} ({c['name']})", argv[1:])
    return calls


def shell_commands(path):
    """The volkhv calls of a script: lines (joined at trailing backslashes)
    with the word "$VOLKHV"."""
    with open(path) as f:
        text = re.sub(r"\\\n", " ", f.read())
    calls = []
    for line in text.splitlines():
        if line.lstrip().startswith("#") or '"$VOLKHV"' not in line:
            continue
        words = shlex.split(line.split('"$VOLKHV"', 1)[1], comments=True)
        calls.append(words)
    return calls


def check_script(binary, path):
    run = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
    if run.returncode != 0:
        fail(path, f"bash -n: {run.stderr.strip()}")
    calls = shell_commands(path)
    for argv in calls:
        check_command(binary, path, argv)
    return len(calls)


def check_dockerfile(path):
    with open(path) as f:
        text = f.read()
    if not re.search(r"^FROM debian:12\b", text, re.M):
        fail(path, "not FROM debian:12")
    for script in ("scripts/install-deps.sh", "scripts/build.sh"):
        if not re.search(r"^RUN .*bash " + re.escape(script), text, re.M):
            fail(path, f"does not run {script}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--deploy", required=True)
    args = parser.parse_args()
    calls = 0
    checked = 0
    for root, _, files in os.walk(args.deploy):
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith((".yaml", ".yml")):
                calls += check_manifest(args.binary, path)
            elif name.endswith((".sh", ".sbatch")):
                calls += check_script(args.binary, path)
            elif name == "Dockerfile":
                check_dockerfile(path)
            else:
                continue
            checked += 1
    if calls == 0:
        fail(args.deploy, "no volkhv command line found")
    for line in failures:
        print("FAIL", line)
    print(f"deploy_check: {checked} files, {calls} volkhv command lines, "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
