#!/usr/bin/env bash
# build-base-image.sh: a base image for scripts/Dockerfile on a machine that reaches no image registry: a
# minimal Debian bookworm with a Java 17 runtime, made by debootstrap from Debian's packages and imported
# into the Docker engine. Nothing is done when the image is there already (exit 0).
#
#   scripts/docker/build-base-image.sh [IMAGE]        IMAGE defaults to tideline-base:bookworm
#
# Then: docker build --build-arg BASE_IMAGE=tideline-base:bookworm ... (docs/containers.md).
# Needs root (debootstrap), debootstrap and a Docker engine; DOCKER_HOST is honoured like by docker itself.
# Environment: TIDELINE_DEBIAN_MIRROR (a Debian mirror URL; debootstrap's own default when unset); TMPDIR, where
# the throwaway root file system (about 500 MB) is built. Measured here: debootstrap 32 s, import 2 s.
set -euo pipefail

IMAGE="${1:-tideline-base:bookworm}"
SUITE=bookworm

if docker image inspect "$IMAGE" > /dev/null 2>&1; then
    echo "build-base-image: $IMAGE is already there"
    exit 0
fi
if ! command -v debootstrap > /dev/null 2>&1; then
    echo "build-base-image: debootstrap is not installed (apt-get install debootstrap)" >&2
    exit 1
fi
if ((EUID != 0)); then
    echo "build-base-image: debootstrap needs root" >&2
    exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/tideline-base.XXXXXX")"
root="$work/rootfs"
cleanup() {
    # debootstrap mounts /proc and /sys inside the target while it installs, and a failed run can leave them
    # mounted: unmount first, and never let rm cross into another file system.
    local mnt
    while read -r mnt; do
        umount -l "$mnt" 2> /dev/null || true
    done < <(awk -v p="$root/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r)
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT

echo "build-base-image: debootstrap $SUITE into $root ..."
# minbase: essential packages and apt only; the JRE's dependencies come with it.
# shellcheck disable=SC2086 # no mirror argument when unset: debootstrap's default
debootstrap --variant=minbase --include=openjdk-17-jre-headless "$SUITE" "$root" ${TIDELINE_DEBIAN_MIRROR:-} \
    > "$work/debootstrap.log" 2>&1 || {
    tail -n 30 "$work/debootstrap.log" >&2
    echo "build-base-image: debootstrap failed" >&2
    exit 1
}
# The downloaded packages and package lists serve no one at run time (about 60 MB).
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
# The JRE as Debian installs it (java itself runs only once the image runs: a chroot has no /proc).
compgen -G "$root/usr/lib/jvm/java-17-*/bin/java" > /dev/null || {
    echo "build-base-image: no Java 17 runtime in the new root file system" >&2
    exit 1
}

echo "build-base-image: importing $root as $IMAGE ..."
tar --numeric-owner -C "$root" -c . | docker import \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL io.tideline.base-image=debootstrap-$SUITE" \
    --change 'CMD ["bash"]' \
    - "$IMAGE" > /dev/null
echo "build-base-image: $IMAGE built"
