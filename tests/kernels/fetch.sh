#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernels/fetch.sh [KERNEL...]: Debian's own cloud kernels for the kernel
# matrix (tests/kernels/run.sh), unpacked, never installed.
#
# KERNEL is a name of the matrix: 5.10 (bullseye), 6.1 (bookworm), 6.12
# (bookworm-backports), 6.18 (the newest 6.18.x of trixie-backports), 7.x
# (the newest 7.x of trixie-backports); none means all of them. Each one's
# linux-image-VERSION-cloud-amd64 package is fetched with `apt-get download`
# through a private sources list and private apt state and cache (the host's
# apt configuration, lists and installed packages are not touched) from the
# mirror the host's own sources name (read at run time from `apt-get
# indextargets`), checked against Debian's archive keyring, and unpacked with
# `dpkg-deb -x` into CACHE/NAME/ (CACHE: $STACKTAP_KERNEL_CACHE, default
# ~/.cache/stacktap/kernels). A kernel already there is not fetched again
# (--refresh fetches anew). CACHE/NAME/vmlinuz and CACHE/NAME/config link
# the kernel and its configuration; CACHE/NAME/package names the package.
set -euo pipefail

CACHE=${STACKTAP_KERNEL_CACHE:-$HOME/.cache/stacktap/kernels}
KEYRING=${STACKTAP_KERNEL_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
ALL_KERNELS=(5.10 6.1 6.12 6.18 7.x)

say() { echo "kernels: $*" >&2; }
die() { say "$*"; exit 1; }

# kernel_suites NAME: the suites NAME's package comes from (SUITE, or
# SUITE@security for the security archive).
kernel_suites() {
	case $1 in
	5.10) echo "bullseye bullseye-security@security" ;;
	6.1) echo "bookworm bookworm-security@security" ;;
	6.12) echo "bookworm-backports" ;;
	6.18 | 7.x) echo "trixie-backports" ;;
	*) return 1 ;;
	esac
}

# kernel_pattern NAME: an ERE for the names of NAME's versioned image packages.
kernel_pattern() {
	case $1 in
	5.10) echo '^linux-image-5\.10\.[0-9]+-[0-9]+-cloud-amd64$' ;;
	6.1) echo '^linux-image-6\.1\.[0-9]+-[0-9]+-cloud-amd64$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+[a-z0-9]+-cloud-amd64$' ;;
	6.18) echo '^linux-image-6\.18\.[0-9]+\+[a-z0-9]+-cloud-amd64$' ;;
	7.x) echo '^linux-image-7\.[0-9]+\.[0-9]+\+[a-z0-9]+-cloud-amd64$' ;;
	*) return 1 ;;
	esac
}

# host_mirror KIND: the host's configured Debian archive (KIND archive) or
# security archive (KIND security) URI, from its own apt sources.
host_mirror() {
	local codename want
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "/etc/os-release names no VERSION_CODENAME"
	want=$codename
	[ "$1" = security ] && want=$codename-security
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax, not the shell's
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null |
		awk -v r="$want" '$2 == r { sub(/\/$/, "", $1); print $1; exit }'
}

# apt_opts DIR: apt-get/apt-cache options that keep every file of apt in DIR.
apt_opts() {
	local d=$1
	APT_OPTS=(-o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/none"
		-o "Dir::Etc::preferences=$d/none/preferences" -o "Dir::Etc::preferencesparts=$d/none"
		-o "Dir::State=$d/state" -o "Dir::State::Lists=$d/state/lists"
		-o "Dir::State::status=$d/state/status" -o "Dir::Cache=$d/cache"
		-o "Dir::Cache::archives=$d/cache/archives" -o "Debug::NoLocking=true"
		-o "APT::Architecture=amd64" -o "APT::Architectures::=amd64"
		-o "APT::Get::AllowUnauthenticated=false" -o "Acquire::Languages=none"
		-o "APT::Sandbox::User=root")
}

# apt_private NAME DIR: a private apt for NAME's suites in DIR, updated.
apt_private() {
	local name=$1 d=$2 suite uri archive security
	archive=${STACKTAP_DEBIAN_MIRROR:-$(host_mirror archive)}
	security=${STACKTAP_DEBIAN_SECURITY_MIRROR:-$(host_mirror security)}
	[ -n "$archive" ] || die "no Debian archive in the host's apt sources (set STACKTAP_DEBIAN_MIRROR)"
	[ -r "$KEYRING" ] || die "$KEYRING: missing (apt-get install debian-archive-keyring)"
	mkdir -p "$d/none" "$d/state/lists/partial" "$d/cache/archives/partial"
	: > "$d/state/status"
	: > "$d/sources.list"
	for suite in $(kernel_suites "$name"); do
		uri=$archive
		if [ "${suite#*@}" = security ]; then
			# A host without a security archive: the kernel of the release itself.
			[ -n "$security" ] || continue
			uri=$security
		fi
		echo "deb [signed-by=$KEYRING] $uri ${suite%@*} main" >> "$d/sources.list"
	done
	apt_opts "$d"
	say "$name: apt-get update ($(awk '{print $4}' "$d/sources.list" | tr '\n' ' ' | sed 's/ $//'))"
	apt-get "${APT_OPTS[@]}" -qq update >&2 || die "$name: apt-get update failed"
}

# pick_package NAME: the versioned image package of NAME: what the meta
# package linux-image-cloud-amd64 depends on when that is NAME's, else the
# newest of NAME's that the suites hold.
pick_package() {
	local pattern dep
	pattern=$(kernel_pattern "$1")
	dep=$(apt-cache "${APT_OPTS[@]}" depends linux-image-cloud-amd64 2>/dev/null |
		awk '$1 == "Depends:" { print $2 }' | grep -E "$pattern" | sort -V | tail -n 1 || true)
	if [ -z "$dep" ]; then
		dep=$(apt-cache "${APT_OPTS[@]}" pkgnames linux-image- | grep -E "$pattern" |
			sort -V | tail -n 1 || true)
	fi
	[ -n "$dep" ] || die "$1: no package named like $pattern in $(kernel_suites "$1")"
	echo "$dep"
}

# image_parts PKG: PKG and the packages its kernel is split into (from 7.x
# on, linux-image-V-cloud-amd64 holds neither the kernel nor its
# configuration: linux-binary-V-cloud-amd64 and linux-base-V-cloud-amd64 do).
image_parts() {
	echo "$1"
	apt-cache "${APT_OPTS[@]}" depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-(binary|base)-/ { print $2 }'
}

# find_one DIR GLOB...: the first file matching one of the GLOBs under DIR.
find_one() {
	local d=$1 g f
	shift
	for g in "$@"; do
		for f in "$d"/$g; do
			[ -e "$f" ] && { echo "${f#"$d"/}"; return 0; }
		done
	done
	return 1
}

# fetch_one NAME: NAME's kernel in CACHE/NAME/, unless it is there already.
fetch_one() {
	local name=$1 dir=$CACHE/$1 work=$WORK/$1 pkg deb vmlinuz config
	local parts=()
	if [ -z "${REFRESH:-}" ] && [ -s "$dir/package" ] && [ -e "$dir/vmlinuz" ]; then
		say "$name: cached ($(cat "$dir/package"))"
		return 0
	fi
	apt_private "$name" "$work/apt"
	pkg=$(pick_package "$name")
	mapfile -t parts < <(image_parts "$pkg")
	say "$name: apt-get download ${parts[*]}"
	mkdir -p "$work/debs"
	(cd "$work/debs" && apt-get "${APT_OPTS[@]}" -qq download "${parts[@]}" >&2) ||
		die "$name: apt-get download ${parts[*]} failed"
	rm -rf "$dir.new"
	mkdir -p "$dir.new/root"
	for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$dir.new/root"; done
	vmlinuz=$(find_one "$dir.new" 'root/boot/vmlinuz-*' 'root/usr/lib/modules/*/vmlinuz') ||
		die "$name: ${parts[*]}: no vmlinuz in /boot or /usr/lib/modules"
	config=$(find_one "$dir.new" 'root/boot/config-*' 'root/usr/lib/modules/*/config') ||
		die "$name: ${parts[*]}: no kernel config in /boot or /usr/lib/modules"
	ln -s "$vmlinuz" "$dir.new/vmlinuz"
	ln -s "$config" "$dir.new/config"
	echo "$pkg $(dpkg-deb -f "$work/debs/${pkg}_"*.deb Version)" > "$dir.new/package"
	rm -rf "$dir" "$work"
	mv "$dir.new" "$dir"
	say "$name: $(cat "$dir/package") in $dir"
}

main() {
	local k names=()
	while [ $# -gt 0 ]; do
		case $1 in
		--refresh) REFRESH=1 ;;
		-h | --help) sed -n '3,17s/^# \{0,1\}//p' "$0"; exit 0 ;;
		*) kernel_suites "$1" > /dev/null || die "unknown kernel '$1' (want: ${ALL_KERNELS[*]})"
		   names+=("$1") ;;
		esac
		shift
	done
	[ ${#names[@]} -gt 0 ] || names=("${ALL_KERNELS[@]}")
	mkdir -p "$CACHE"
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/stacktap-kfetch.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	for k in "${names[@]}"; do fetch_one "$k"; done
}

main "$@"
