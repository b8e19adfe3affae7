#!/usr/bin/env bash
# Builds the ipcbench container image (OCI) from this checkout's own build, with buildah from
# Debian's packages; no base image and no registry are needed. The image holds:
#   - what `cmake --install` puts under /usr (ipchost, its plugins, the SDK, docs), minus the
#     kits (their runtimes are not in the image, and an agent runs native workers only);
#   - every shared library ipchost and the plugins load, found with ldd, with the dynamic loader
#     and an ld.so.cache, and the Debian merged-/usr links (/lib -> usr/lib, ...);
#   - busybox (Debian's busybox-static) as sh, cat, tar, ls...: `kubectl exec` and `kubectl cp`
#     need them, ipchost does not;
#   - a user ipcbench (uid and gid 10001) that the image runs as: never root (the agent refuses
#     root without --allow-root anyway), with its home /home/ipcbench;
#   - /etc/nsswitch.conf "hosts: files dns" (--agents dns:NAME:PORT resolves through the
#     cluster's DNS; glibc 2.36 has both built in).
# Entrypoint ipchost, default arguments --help, port 7451/tcp, OCI labels with the version and the
# git revision. deploy/kubernetes/ runs it; deploy/image/README.md says more.
#
# Usage: deploy/image/build.sh [--build-dir DIR] [--tag NAME:TAG] [--oci-archive FILE]
#        deploy/image/build.sh --print-tag        the default tag, as the manifests name it
#   --build-dir DIR     a configured build of this checkout (default: build/, configured and built
#                       Release here as scripts/run.sh does)
#   --tag NAME:TAG      the image's name (default localhost/ipcbench:VERSION); push it to your
#                       registry with `buildah push` and name it in deploy/kubernetes/*
#   --oci-archive FILE  also write the image to FILE as an OCI archive (docker-archive is not
#                       made; `skopeo copy oci-archive:FILE docker-daemon:...` converts)
# Needs root or a user buildah can run rootless as, buildah and busybox-static
# (scripts/install-deps.sh --image).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/deploy/image"

# The project's version as CMakeLists.txt makes it (the ABI's MAJOR.MINOR in transport.h, then
# the patch number), without a build: the manifests name the image by it.
project_version() {
  local header="$root/sdk/include/ipcbench/transport.h" major minor patch
  major=$(sed -n 's/^#define IPCB_ABI_MAJOR \([0-9]*\)$/\1/p' "$header")
  minor=$(sed -n 's/^#define IPCB_ABI_MINOR \([0-9]*\)$/\1/p' "$header")
  patch=$(sed -n 's/^set(IPCBENCH_PATCH_VERSION \([0-9]*\)).*/\1/p' "$root/CMakeLists.txt")
  echo "$major.$minor.$patch"
}

build="" tag="" archive=""
while [ $# -gt 0 ]; do
  case "$1" in
  --build-dir) build="$2"; shift 2 ;;
  --tag) tag="$2"; shift 2 ;;
  --oci-archive) archive="$2"; shift 2 ;;
  --print-tag) echo "localhost/ipcbench:$(project_version)"; exit 0 ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "build-image: unknown argument '$1' (--build-dir, --tag, --oci-archive, --print-tag)" >&2; exit 2 ;;
  esac
done
tag="${tag:-localhost/ipcbench:$(project_version)}"
for tool in buildah ldd ldconfig; do
  command -v "$tool" >/dev/null || { echo "build-image: $tool is missing (scripts/install-deps.sh --image)" >&2; exit 1; }
done
busybox=/bin/busybox
[ -x "$busybox" ] && "$busybox" --list 2>/dev/null | grep -qx tar ||
  { echo "build-image: busybox is missing (scripts/install-deps.sh --image installs busybox-static)" >&2; exit 1; }

if [ -z "$build" ]; then
  build="$root/build"
  "$root/scripts/install-deps.sh"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DIPCBENCH_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)"
fi
[ -x "$build/bin/ipchost" ] || { echo "build-image: no ipchost in $build/bin (build it first)" >&2; exit 1; }
version="$("$build/bin/ipchost" --version | awk '{print $2}')"

stage="$(mktemp -d)"
ctr=""
cleanup() {
  [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1
  rm -rf "$stage"
}
trap cleanup EXIT
rootfs="$stage/rootfs"

# 1. The project's own install, without the kits.
DESTDIR="$rootfs" cmake --install "$build" --prefix /usr >/dev/null
rm -rf "$rootfs/usr/lib/ipcbench/kits"

# 2. The libraries, at their canonical folders (/lib/x86_64-linux-gnu -> /usr/lib/...), under
#    the names the binaries ask for; the merged-/usr links where this system has them.
for link in lib lib64 bin; do
  if [ -L "/$link" ]; then ln -s "$(readlink "/$link")" "$rootfs/$link"; fi
done
mkdir -p "$rootfs/usr/bin" "$rootfs/etc/ld.so.conf.d"
libraries() {
  for f in "$rootfs/usr/bin/ipchost" "$rootfs"/usr/lib/ipcbench/plugins/*; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
  done | sort -u
}
for lib in $(libraries); do
  dest="$rootfs$(readlink -f "$(dirname "$lib")")"
  mkdir -p "$dest"
  cp -L "$lib" "$dest/$(basename "$lib")"
done
# The cache names the folders the libraries went to (this system's own ld.so.conf.d may name
# folders of packages the image does not have).
for lib in $(libraries); do readlink -f "$(dirname "$lib")"; done | sort -u >"$rootfs/etc/ld.so.conf"
rmdir "$rootfs/etc/ld.so.conf.d"
ldconfig -r "$rootfs"

# 3. busybox, the user, the files a runtime mounts over or a resolver reads.
cp "$busybox" "$rootfs/usr/bin/busybox"
for applet in sh cat tar ls env id sleep mkdir rm cp mv ps head tail grep wc date find; do
  ln -s busybox "$rootfs/usr/bin/$applet"
done
cp "$here/passwd" "$here/group" "$here/nsswitch.conf" "$rootfs/etc/"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$rootfs/etc/hosts"
: >"$rootfs/etc/resolv.conf"
mkdir -p "$rootfs/proc" "$rootfs/sys" "$rootfs/dev" "$rootfs/tmp" "$rootfs/home/ipcbench"
chmod 1777 "$rootfs/tmp"
chmod 0700 "$rootfs/home/ipcbench"
chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group" "$rootfs/etc/nsswitch.conf" "$rootfs/etc/hosts"
# Everything root's and read-only to others but the user's home: nobody in the container can
# change the plugins ipchost loads (it refuses plugin folders others can write, too).
chown -R 0:0 "$rootfs"
chown 10001:10001 "$rootfs/home/ipcbench"
chmod -R go-w "$rootfs/usr" "$rootfs/etc"

# 4. The image.
revision="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
ctr="$(buildah from --quiet scratch)"
tar -C "$rootfs" --numeric-owner -cf "$stage/rootfs.tar" .
buildah add --quiet "$ctr" "$stage/rootfs.tar" / >/dev/null
buildah config \
  --user 10001:10001 --workingdir /home/ipcbench \
  --env HOME=/home/ipcbench --env PATH=/usr/bin:/bin \
  --entrypoint '["/usr/bin/ipchost"]' --cmd '["--help"]' \
  --port 7451/tcp \
  --label org.opencontainers.image.title=ipcbench \
  --label "org.opencontainers.image.description=ipchost: how fast two processes (or two hosts, or a fleet) can talk" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.revision=$revision" \
  --label "org.opencontainers.image.created=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$tag" >/dev/null
ctr=""
echo "build-image: $tag (ipchost $version, revision ${revision:0:12})"
if [ -n "$archive" ]; then
  rm -f "$archive"
  buildah push --quiet "$tag" "oci-archive:$archive:$tag"
  echo "build-image: OCI archive $archive"
fi
