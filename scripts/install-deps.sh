#!/usr/bin/env bash
# Installs the Debian 12 packages ipcbench needs, if any is missing. Without flags: what
# building and running ipchost needs (scripts/run.sh). `--test`: also what the test suite uses
# (scripts/test.sh), the kits' runtimes included; `--kits`: the runtimes of the kits (workers in
# Go, Python and Java, kits/), for users who want --impl go, python or java; `--bench`: the peer tools
# scripts/bench.sh compares with; `--windows`: the mingw-w64 cross compiler and wine, for the
# Windows build and its tests; `--image`: what deploy/image/build.sh needs to build the
# container image (buildah, busybox-static).
# Runs as root (CI, containers) or through sudo.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libboost-dev libboost-program-options-dev
  libspdlog-dev libfmt-dev nlohmann-json3-dev
  liburing-dev  # socket.tcp/socket.unix completion (--io uring)
  libssl-dev    # the agent's handshake: HMAC-SHA256 and nonces from OpenSSL's libcrypto
)
kit_packages=(
  golang-go  # kits/go: built by CMake where go is found
  python3    # kits/python: standard library only
  openjdk-17-jdk-headless  # kits/java: javac, jni.h for its JNI library (queues, affinity)
  mono-mcs mono-runtime libmono-system-core4.0-cil  # the mono kit (kits/dotnet): mcs, mono, System.IO.Pipes
  # The dotnet kit (C# on CoreCLR) is built where the .NET SDK is installed; it is no Debian
  # package (https://learn.microsoft.com/dotnet/core/install/linux-debian): CMake says when it
  # is missing, and the tests name the kit they skipped.
)
test_packages=(
  catch2
  "${kit_packages[@]}"
  # SDK examples (real third-party transports) and the ABI baseline check
  libzmq3-dev libnng-dev abigail-tools binutils
  # fuzzing (libFuzzer), static analysis, and the C++ helper built with clang++ (C++14 default)
  clang-14 libclang-rt-14-dev clang-tidy-14 clang-format-14
  # two hosts in network namespaces (scripts/netns-test.sh)
  iproute2 nftables jq
  # the HTML report is checked in a real browser
  chromium fonts-dejavu-core
  # the man page is checked with groff; the .deb with dpkg-deb
  groff-base dpkg
  # the container image and the Kubernetes manifests (tests/deploy/kubernetes_test.sh): the
  # image built, a DNS server standing in for the cluster's, the manifests read back
  buildah busybox-static dnsmasq-base python3-yaml
)
image_packages=(buildah busybox-static)

for flag in "$@"; do
  case "$flag" in
  --test) packages+=("${test_packages[@]}") ;;
  --kits) packages+=("${kit_packages[@]}") ;;
  --bench) packages+=(iperf3 sockperf qperf util-linux time) ;;  # scripts/bench.sh's peer tools; GNU time for the fidelity programs
  --windows) packages+=(g++-mingw-w64-x86-64-posix wine64 wine) ;;
  --image) packages+=("${image_packages[@]}") ;;
  *) echo "install-deps: unknown flag $flag (--test, --kits, --bench, --windows, --image)" >&2; exit 2 ;;
  esac
done
# kubectl renders the kustomizations in the tests. Debian's is kubernetes-client (1.20); a
# kubectl from elsewhere (the Kubernetes or Google Cloud packages) is used as it is: the two
# packages both ship /usr/bin/kubectl and cannot be installed side by side.
for flag in "$@"; do
  if [ "$flag" = --test ] && ! command -v kubectl >/dev/null; then packages+=(kubernetes-client); fi
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
