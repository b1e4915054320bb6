#!/usr/bin/env bash
# `make fresh`: the README's two commands on a machine with nothing installed by hand.
#
# A Debian bookworm root made with debootstrap (--variant=minbase: no Python, no make, no compiler) gets what the
# README's quick start asks for and nothing else (Python 3.11 with venv, and make, from Debian's packages). A clean
# clone of this repository's HEAD (committed work only) then runs, in that root, `make run` (checked with the
# README's second command, `.venv/bin/uw-referee check taps`, while it serves) and `make test`, whose own setup
# scripts install the rest (Chromium, nginx, Node) through apt. Only the network is the host's: the PostgreSQL on
# 127.0.0.1:5432 and the Redis the tests use are the host's, and pip reads the public package index (the host's pip
# configuration and environment stay outside). Prints each step's result and the tail of make test; exit 0 when
# both commands passed.
#
# Needs root, debootstrap (installed with apt-get when missing) and about 3 GB in FRESH_DIR (default: a new
# directory under /var/tmp). FRESH_REF=<commit> checks another commit; FRESH_KEEP=1 keeps the root afterwards.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
ref=$(git -C "$repo" rev-parse "${FRESH_REF:-HEAD}")
work=${FRESH_DIR:-$(mktemp -d /var/tmp/uw-fresh.XXXXXX)}
root=$work/root
log=$work/fresh.log
mkdir -p "$work"
: > "$log"
say() { printf '== fresh: %s\n' "$*" | tee -a "$log"; }

if [ "$(id -u)" != 0 ]; then
    echo "make fresh builds a Debian root with debootstrap and chroots into it: run it as root" >&2
    exit 2
fi
# The mirror apt uses here (deb822 or one-line sources), else Debian's own.
mirror=${FRESH_MIRROR:-$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | awk '/^URIs:/ && $2 ~ /debian\/?$/ {print $2; exit} /^deb / && $2 !~ /^\[/ && $2 ~ /debian\/?$/ {print $2; exit}' || true)}
mirror=${mirror:-http://deb.debian.org/debian}
if ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
    say "note: uncommitted changes are not part of the check (it clones $ref)"
fi

server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM -- "-$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    for mounted in dev/shm dev/pts sys proc; do
        if mountpoint -q "$root/$mounted"; then umount -l "$root/$mounted"; fi
    done
    # Never delete through a mount that is still there (a host directory seen inside the root).
    if [ "${FRESH_KEEP:-0}" != 1 ] && ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # stopped: the EXIT trap still unmounts and cleans up

started=$(date +%s)
say "debootstrap bookworm (minbase) from $mirror into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >>"$log" 2>&1 || { tail -20 "$log"; exit 1; }
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mkdir -p "$root/dev/pts" "$root/dev/shm"
mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666
ln -sf pts/ptmx "$root/dev/ptmx"
mount -t tmpfs shm "$root/dev/shm"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/hosts "$root/etc/hosts"
# A network whose proxy signs TLS with its own authority (one under /usr/local/share/ca-certificates here): the
# root trusts it as the host does, or pip cannot reach the package index. The only setting carried over.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    # its own file: Debian's ca-certificates, pulled in with python3, rewrites /etc/ssl/certs/ca-certificates.crt
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/network-ca-bundle.pem"
    printf '[global]\ncert = /etc/network-ca-bundle.pem\n' > "$root/etc/pip.conf"
    say "the network's TLS authority: the host's CA bundle, for pip (/etc/pip.conf in the root)"
fi

# A login shell's environment on that machine: nothing of this one's (no PIP_*, no UW_*, no virtual environment).
in_root() {
    chroot "$root" /usr/bin/env -i HOME=/root USER=root SHELL=/bin/bash TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$1"
}

say "apt-get install the README's prerequisites: python3 python3-venv make"
in_root 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv make' \
    >>"$log" 2>&1 || { tail -20 "$log"; exit 1; }
in_root 'python3 --version; make --version | head -1' | tee -a "$log"

say "clean clone of $ref into /srv (a folder other users may enter, as the store's attack tests need)"
git clone -q --no-hardlinks "$repo" "$root/srv/unspeakable-words"
git -C "$root/srv/unspeakable-words" checkout -q --detach "$ref"
rm -rf "$root/srv/unspeakable-words/.git/hooks"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
say "make run PORT=$port (the README's first command)"
setsid chroot "$root" /usr/bin/env -i HOME=/root USER=root TERM=dumb PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    /bin/bash -c "cd /srv/unspeakable-words && exec make run PORT=$port" >>"$log" 2>&1 &
server=$!
answered=""
for _ in $(seq 600); do
    if answered=$(python3 -c "import urllib.request as u; print(u.urlopen('http://127.0.0.1:$port/healthz', timeout=2).read().decode())" 2>/dev/null); then
        break
    fi
    kill -0 "$server" 2>/dev/null || break
    sleep 1
done
run_ok=0
if [ -n "$answered" ]; then
    say "make run: the word API answered /healthz: $answered"
    check=$(in_root 'cd /srv/unspeakable-words && .venv/bin/uw-referee check taps' 2>&1) && run_ok=1
    say ".venv/bin/uw-referee check taps: $check"
else
    say "make run: FAILED, the word API never answered on port $port"
    tail -30 "$log"
fi
kill -TERM -- "-$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
server=""

say "make test (the README's test command)"
test_ok=0
in_root 'cd /srv/unspeakable-words && make test' >>"$log" 2>&1 && test_ok=1
grep -E '^== |passed|failed|SKIPPED LOUDLY|^FAILED|^ERROR' "$log" | grep -v '^== fresh' | tail -40
minutes=$(( ($(date +%s) - started) / 60 ))
if [ "$run_ok" = 1 ] && [ "$test_ok" = 1 ]; then
    say "PASSED: make run and make test on a fresh Debian bookworm root, commit ${ref:0:12}, $minutes min (log: $log)"
    exit 0
fi
say "FAILED: make run $([ "$run_ok" = 1 ] && echo passed || echo failed), make test $([ "$test_ok" = 1 ] && echo passed || echo failed), commit ${ref:0:12}, $minutes min (log: $log)"
exit 1
