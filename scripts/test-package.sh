#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package's test (ctest Package.DebInstallsAndRuns, label package): builds the .deb of
# BUILD_DIR with CPack into a scratch folder (so it is this tree's, not a stale one), checks its
# control fields and contents, unpacks it into a scratch root (dpkg-deb -x: the host's dpkg
# database and files stay untouched), checks that the host has what its Depends name, and runs
# what it installed from there: vtscope --version and --help, libvtscope.so as a JVM's agent, the
# jars. Man pages and bash completion are checked when the build's install rules have them.
#   usage: scripts/test-package.sh BUILD_DIR VERSION [JAVA_HOME]
# Exit status: 0 passed, 1 failed (every failure is listed), 77 skipped (no dpkg-deb).
set -euo pipefail

build=${1:?usage: test-package.sh BUILD_DIR VERSION [JAVA_HOME]}
version=${2:?usage: test-package.sh BUILD_DIR VERSION [JAVA_HOME]}
java_home=${3:-${JAVA_HOME:-}}

for tool in dpkg-deb dpkg-shlibdeps cpack; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: no $tool (a Debian system with dpkg-dev and cmake builds the package)"
    exit 77
  fi
done

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# A section's "ok" only when it failed nothing: begin marks where it starts.
begin() { section_failures=$failures; }
pass() { [ "$failures" -gt "$section_failures" ] || echo "ok: $*"; }
section_failures=0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=$(dpkg --print-architecture)
deb=$work/out/vtscope_${version}_${arch}.deb
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  echo "FAIL: cpack could not build the package"
  exit 1
fi
if [ ! -f "$deb" ]; then
  ls "$work/out"
  echo "FAIL: cpack wrote no $(basename "$deb")"
  exit 1
fi
pass "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# --- control fields
begin
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = vtscope ] || fail "Package is '$(field Package)', not vtscope"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', not $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture is '$(field Architecture)', not $arch"
[[ "$(field Maintainer)" =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "Maintainer '$(field Maintainer)' is not 'Name <address>'"
[ -n "$(field Description)" ] || fail "no Description"
depends=$(field Depends)
# dpkg-shlibdeps's share: the libraries vtscope links (a Depends without them was not computed).
for lib in libc6 libbpf1 libelf1 libcurl4; do
  [[ ",$depends" =~ [,\ ]$lib[\ ,\(]|[,\ ]$lib$ ]] || fail "Depends lacks $lib: '$depends'"
done
pass "control: $(field Package) $(field Version) $(field Architecture); Depends: $depends"

# --- contents
begin
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$work/contents"
required=(/usr/bin/vtscope /usr/lib/vtscope/libvtscope.so
  /usr/share/vtscope/java/vtscope-java.jar /usr/share/vtscope/java/vtscope-otel.jar
  /usr/share/vtscope/java/vtscope-otel-agent-extension.jar
  /usr/share/doc/vtscope/copyright /usr/share/doc/vtscope/LICENSE /usr/share/doc/vtscope/NOTICE
  /usr/share/doc/vtscope/LICENSES/Apache-2.0.txt /usr/share/doc/vtscope/LICENSES/GPL-2.0-only.txt
  /usr/share/doc/vtscope/README.md)
# The man pages the build wrote (build/man/*.1), when its install rules have man pages (a
# build/man left by another configuration is not this package's business).
install_rules=("$build"/cmake_install.cmake "$build"/*/cmake_install.cmake)
man_pages=()
if grep -qs '/man1' "${install_rules[@]}"; then
  shopt -s nullglob
  man_pages=("$build"/man/*.1)
  shopt -u nullglob
  [ ${#man_pages[@]} -gt 0 ] || fail "the install rules have man pages, but $build/man has none"
fi
for page in "${man_pages[@]}"; do required+=("/usr/share/man/man1/$(basename "$page")"); done
# Bash completion, when the build's install rules have it.
completion=
if grep -qs 'bash-completion' "${install_rules[@]}"; then
  completion=/usr/share/bash-completion/completions/vtscope
  required+=("$completion")
fi
for path in "${required[@]}"; do
  grep -qxF "$path" "$work/contents" || fail "the package has no $path"
done
pass "contents: ${#required[@]} files checked (${#man_pages[@]} man pages, completion: ${completion:-not installed by this build})"

# --- unpacked into a scratch root
root=$work/root
dpkg-deb -x "$deb" "$root"

# Each Depends item must be met by a package installed here, version included.
met() {
  local alt name op want have
  IFS='|' read -ra alts <<<"$1"
  for alt in "${alts[@]}"; do
    read -r name op want <<<"$(sed -E 's/[()]/ /g' <<<"$alt")"
    have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null | sed -n 's/^install ok installed //p')
    [ -n "$have" ] || continue
    [ -z "$op" ] || dpkg --compare-versions "$have" "$op" "$want" || continue
    return 0
  done
  return 1
}
IFS=',' read -ra items <<<"$depends"
for item in "${items[@]}"; do met "$item" || fail "Depends '$item' is not met on this machine"; done

begin
if ! out=$("$root/usr/bin/vtscope" --version 2>&1); then
  fail "vtscope --version failed: $out"
elif [ "$out" != "vtscope $version" ]; then
  fail "vtscope --version printed '$out', not 'vtscope $version'"
fi
pass "vtscope --version: $out"
begin
if help=$("$root/usr/bin/vtscope" --help 2>&1); then
  grep -qi 'usage.*vtscope' <<<"$help" || fail "vtscope --help has no usage line"
  for command in trace stat profile block top report; do
    grep -qw "$command" <<<"$help" || fail "vtscope --help does not name the command $command"
  done
  pass "vtscope --help: $(wc -l <<<"$help") lines, every command named"
else
  fail "vtscope --help failed: $help"
fi

library=$root/usr/lib/vtscope/libvtscope.so
if [ -f "$library" ]; then
  nm -D --defined-only "$library" | grep -qw Agent_OnLoad || fail "libvtscope.so exports no Agent_OnLoad"
fi
for page in "${man_pages[@]}"; do
  grep -q '^\.TH' "$root/usr/share/man/man1/$(basename "$page")" 2>/dev/null ||
    fail "man page $(basename "$page") is not a man page (no .TH)"
done
if [ -n "$completion" ]; then
  bash -c "source '$root$completion' && complete -p vtscope" >/dev/null 2>&1 ||
    fail "sourcing $completion defines no completion for vtscope"
fi

# --- installed by dpkg into a second scratch root with a dpkg database of its own: the package's
# maintainer scripts run (chrootless: the root holds no shell) and dpkg records it installed; then
# removed, which must leave none of its files. --force-depends: that database knows no other
# package; the Depends were checked against this machine above.
begin
dpkg_root=$work/dpkg-root
mkdir -p "$dpkg_root/var/lib/dpkg/info" "$dpkg_root/var/lib/dpkg/updates" "$dpkg_root/var/lib/dpkg/triggers"
touch "$dpkg_root/var/lib/dpkg/status"
dpkg_opts=(--root="$dpkg_root" --log="$work/dpkg.log" --force-script-chrootless --force-depends --force-not-root)
if ! dpkg "${dpkg_opts[@]}" -i "$deb" >"$work/dpkg-install.log" 2>&1; then
  fail "dpkg -i into a scratch root failed: $(tail -3 "$work/dpkg-install.log")"
elif [ "$(dpkg --root="$dpkg_root" -s vtscope 2>/dev/null | sed -n 's/^Status: //p')" != "install ok installed" ]; then
  fail "dpkg does not record vtscope as installed in the scratch root"
elif ! out=$("$dpkg_root/usr/bin/vtscope" --version 2>&1) || [ "$out" != "vtscope $version" ]; then
  fail "vtscope --version from the dpkg-installed root printed '$out'"
elif ! dpkg "${dpkg_opts[@]}" -r vtscope >"$work/dpkg-remove.log" 2>&1; then
  fail "dpkg -r vtscope failed: $(tail -3 "$work/dpkg-remove.log")"
elif left=$(find "$dpkg_root" -path "$dpkg_root/var" -prune -o -type f -print | head -3) && [ -n "$left" ]; then
  fail "dpkg -r left files behind: $left"
fi
pass "dpkg -i into a scratch root: installed, vtscope --version ran, dpkg -r removed every file"

# --- the Java side, with the JDK vtscope was built with (skipped, and said, without one)
if [ -n "$java_home" ] && [ -x "$java_home/bin/java" ]; then
  if out=$("$java_home/bin/java" "-agentpath:$library=probes,otep" -version 2>&1); then
    pass "java -agentpath:<root>/usr/lib/vtscope/libvtscope.so=probes,otep -version"
  else
    fail "the JVM did not load the installed libvtscope.so: $out"
  fi
  begin
  for jar in vtscope-java.jar vtscope-otel.jar vtscope-otel-agent-extension.jar; do
    "$java_home/bin/jar" tf "$root/usr/share/vtscope/java/$jar" >"$work/jar" 2>&1 ||
      fail "$jar is not a readable jar: $(head -1 "$work/jar")"
  done
  grep -qx 'io/vtscope/native/linux-x86_64/libvtscope.so' < <("$java_home/bin/jar" tf "$root/usr/share/vtscope/java/vtscope-java.jar" 2>/dev/null) ||
    fail "vtscope-java.jar carries no libvtscope.so"
  pass "jars read by $java_home/bin/jar"
else
  echo "note: no JDK at '$java_home': the library and the jars were not run"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "the package builds, installs with dpkg into a scratch root and runs from it"
