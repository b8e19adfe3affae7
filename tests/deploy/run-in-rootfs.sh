#!/usr/bin/env bash
# Runs one command in the image's root file system the way a pod's container sees it, for
# tests/deploy/kubernetes_test.sh: NOT a container runtime (none runs on this machine), but the
# parts of one a pod spec relies on. Meant to run as root inside `unshare --mount --pid --fork`
# (so the mounts and every process it starts vanish with it):
#   - the root read-only (readOnlyRootFilesystem), with /proc, /dev, a fresh tmpfs on /tmp
#     (the emptyDir), and optionally /etc/resolv.conf (the kubelet's) and /results (the claim);
#   - the command run as the image's user (chroot --userspec) with exactly the environment given.
# Usage: run-in-rootfs.sh ROOTFS MOUNTPOINT USER ENVFILE ARGVFILE RESOLV|- RESULTS|-
#   ENVFILE and ARGVFILE hold NUL-separated NAME=VALUE words and the command line.
set -euo pipefail
rootfs="$1" mnt="$2" user="$3" envfile="$4" argvfile="$5" resolv="$6" results="$7"
mkdir -p "$mnt"
mount --rbind "$rootfs" "$mnt"
mount -o remount,bind,ro "$mnt"
mount -t proc proc "$mnt/proc"
mount --rbind /dev "$mnt/dev"
mount -t tmpfs -o mode=1777,size=64m tmpfs "$mnt/tmp"
[ "$resolv" = - ] || mount --bind "$resolv" "$mnt/etc/resolv.conf"
[ "$results" = - ] || mount --bind "$results" "$mnt/results"
mapfile -d '' -t env_words <"$envfile"
mapfile -d '' -t argv <"$argvfile"
chroot="$(command -v chroot)"  # found now: the new environment's PATH is the image's
exec env -i "${env_words[@]}" "$chroot" --userspec="$user" "$mnt" "${argv[@]}"
