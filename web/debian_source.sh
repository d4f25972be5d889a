#!/bin/sh
# Unpacks the Debian source of the package that built an installed -dev package, with Debian's
# patches applied, into DEST: the page's yaml-cpp and libcsv are compiled to WebAssembly from the
# very sources the native build links (Debian ships no WebAssembly builds, and the loaders must run
# in the page, since pasted YAML is read there). The system's apt sources list binaries only, so a
# private list with the matching deb-src line and private state folders are used; nothing of the
# system's apt configuration changes.  Usage: debian_source.sh DEV_PACKAGE DEST
set -eu
dev=$1
dest=$2
source=$(dpkg-query -W -f='${source:Package}' "$dev")
version=$(dpkg-query -W -f='${source:Version}' "$dev")
. /etc/os-release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/get"
echo "deb-src http://deb.debian.org/debian $VERSION_CODENAME main" > "$work/sources.list"
apt() {
  apt-get -qq -o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o APT::Sandbox::User=root "$@"
}
apt update
(cd "$work/get" && apt source --download-only "$source=$version")
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
dpkg-source --no-check -x "$work/get/${source}_${version#*:}.dsc" "$dest" >/dev/null
echo "$source $version unpacked into $dest"
