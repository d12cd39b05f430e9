#!/usr/bin/env bash
# tools/setup.d/apt-sources.sh against scratch apt configurations (through
# APT_CONFIG): a host behind a local mirror gets the missing suites from
# that mirror with its keyring, in both source formats; nothing is added
# twice; a changed mirror is followed; a host without bookworm gets a clear
# error.  The machine's own apt configuration is never touched (checked).
set -euo pipefail
SCRIPT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/setup.d/apt-sources.sh

real_state() { cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null | md5sum || true; }
before=$(real_state)

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# A fresh scratch configuration; lists are never fetched here.
scratch() {
	rm -rf "$T/etc" "$T/lists"
	mkdir -p "$T/etc/apt/sources.list.d" "$T/etc/apt/apt.conf.d" \
		"$T/etc/apt/preferences.d" "$T/lists/partial"
	printf 'Dir::Etc "%s/etc/apt";\nDir::State::Lists "%s/lists";\n' "$T" "$T" >"$T/apt.conf"
}
EXTRA=$T/etc/apt/sources.list.d/hlipc-bookworm-extra.sources
run() { APT_CONFIG=$T/apt.conf bash "$SCRIPT" >"$T/out" 2>"$T/err"; }
targets() {
	APT_CONFIG=$T/apt.conf apt-get indextargets --no-release-info \
		--format '$(SITE) $(RELEASE) $(TARGET_OF)' 2>/dev/null | sort -u
}
has_target() { targets | grep -qx "$1" || fail "apt does not see '$1' ($2)"; }

# 1. deb822 sources on a local mirror with its own keyring.
scratch
cat >"$T/etc/apt/sources.list.d/local.sources" <<'S'
Types: deb
URIs: http://mirror.local.invalid/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/local-mirror.gpg

Types: deb
URIs: http://mirror.local.invalid/debian-security/
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/local-security.gpg
S
run || fail "deb822 mirror: exit $? ($(cat "$T/err"))"
grep -qx changed "$T/out" || fail "deb822 mirror: did not report a change"
grep -q 'mirror.local.invalid' "$T/err" || fail "deb822 mirror: does not say which archive it used"
if grep -q 'deb.debian.org' "$EXTRA"; then fail "deb822 mirror: wrote deb.debian.org"; fi
for t in "bookworm-backports deb" "bookworm-backports deb-src" "bookworm deb-src" \
	"bookworm-updates deb-src"; do
	has_target "http://mirror.local.invalid/debian $t" "deb822 mirror"
done
has_target "http://mirror.local.invalid/debian-security bookworm-security deb-src" "deb822 mirror"
# Each added stanza carries the keyring of the stanza it came from.
awk '/^URIs:/ { u = $2 } /^Signed-By:/ { print u, $2 }' "$EXTRA" | sort -u >"$T/keys"
if [ "$(grep -c . "$T/keys")" != 2 ] ||
	! grep -qx 'http://mirror.local.invalid/debian /usr/share/keyrings/local-mirror.gpg' "$T/keys" ||
	! grep -qx 'http://mirror.local.invalid/debian-security /usr/share/keyrings/local-security.gpg' "$T/keys"; then
	fail "deb822 mirror: keyrings are not the mirror's own: $(tr '\n' ';' <"$T/keys")"
fi
[ "$fails" = 0 ] && ok "deb822 mirror: backports and deb-src added from the mirror with its keyrings"

# 2. Running again changes nothing.
cp "$EXTRA" "$T/extra.1"
run || fail "second run: exit $?"
if grep -qx changed "$T/out"; then fail "second run: reported a change"; fi
cmp -s "$EXTRA" "$T/extra.1" || fail "second run: rewrote the file"
n=$(targets | grep -c 'bookworm-backports deb$')
[ "$n" = 1 ] || fail "second run: backports configured $n times"
[ "$fails" = 0 ] && ok "second run: nothing added twice"

# 3. The mirror changes: the added entries follow it.
sed -i 's|mirror.local.invalid/debian$|other-mirror.invalid/debian|' \
	"$T/etc/apt/sources.list.d/local.sources"
run || fail "changed mirror: exit $?"
grep -qx changed "$T/out" || fail "changed mirror: not reported"
if grep -q 'URIs: http://mirror.local.invalid/debian$' "$EXTRA"; then
	fail "changed mirror: the old mirror is still in $EXTRA"
fi
has_target "http://other-mirror.invalid/debian bookworm-backports deb" "changed mirror"
[ "$fails" = 0 ] && ok "changed mirror: followed"

# 4. One-line format in sources.list, trailing slash, options, no
#    bookworm-updates: only what that archive lacks is added.
scratch
cat >"$T/etc/apt/sources.list" <<'S'
# a comment
deb [arch=amd64 signed-by=/etc/apt/keyrings/mirror.asc] http://10.0.0.1.invalid/debian/ bookworm main
deb-src [signed-by=/etc/apt/keyrings/mirror.asc] http://10.0.0.1.invalid/debian/ bookworm main
S
run || fail "one-line: exit $? ($(cat "$T/err"))"
has_target "http://10.0.0.1.invalid/debian bookworm-backports deb" "one-line"
has_target "http://10.0.0.1.invalid/debian bookworm-backports deb-src" "one-line"
if grep -q 'bookworm-updates' "$EXTRA"; then fail "one-line: added bookworm-updates the host does not use"; fi
if grep -q 'Suites: bookworm$' "$EXTRA"; then fail "one-line: added bookworm deb-src although it is there"; fi
grep -q 'Signed-By: /etc/apt/keyrings/mirror.asc' "$EXTRA" || fail "one-line: keyring not taken over"
[ "$fails" = 0 ] && ok "one-line format: only the missing suites, with the line's keyring"

# 5. Everything already configured: no file, no change.
cat >>"$T/etc/apt/sources.list" <<'S'
deb [signed-by=/etc/apt/keyrings/mirror.asc] http://10.0.0.1.invalid/debian/ bookworm-backports main
deb-src [signed-by=/etc/apt/keyrings/mirror.asc] http://10.0.0.1.invalid/debian/ bookworm-backports main
S
run || fail "complete: exit $?"
if grep -qx changed "$T/out"; then fail "complete: reported a change"; fi
if [ -e "$EXTRA" ]; then fail "complete: $EXTRA left behind"; fi
[ "$fails" = 0 ] && ok "complete sources: nothing added, the earlier file removed"

# 6. No Debian 12 archive at all: a clear error, nothing written.
scratch
printf 'deb http://mirror.local.invalid/debian trixie main\n' >"$T/etc/apt/sources.list"
if run; then fail "no bookworm: succeeded"; fi
grep -q 'no Debian 12 (bookworm) archive' "$T/err" || fail "no bookworm: unclear error: $(cat "$T/err")"
if [ -e "$EXTRA" ]; then fail "no bookworm: wrote $EXTRA"; fi
[ "$fails" = 0 ] && ok "no bookworm archive: clear error"

[ "$(real_state)" = "$before" ] || fail "the machine's own apt sources changed"
echo "6 cases, $fails failures"
[ "$fails" = 0 ]
