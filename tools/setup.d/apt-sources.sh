#!/usr/bin/env bash
# Make sure apt can fetch what the project needs from the machine's own
# Debian archive: bookworm-backports (the 6.12 kernel) and source packages
# (deb-src for bookworm and bookworm-backports, for UCX's and the kernel's
# sources).  The archive address and its keyring are taken from the
# sources this machine already uses, so a host behind a local mirror keeps
# using that mirror.  Only missing entries are added, in one file that
# says where they came from.  Prints "changed" when it wrote that file.
#
# Where apt's configuration lives is asked of apt itself (apt-config), so
# APT_CONFIG pointing at another configuration makes the script read and
# write that one (tests/setup/apt-sources-test.sh does so).
set -euo pipefail

say() { printf '[setup] %s\n' "$*" >&2; }

APT_LIST='' APT_PARTS=''
eval "$(apt-config shell APT_LIST Dir::Etc::sourcelist/f APT_PARTS Dir::Etc::sourceparts/d)"
APT_PARTS=${APT_PARTS%/}
EXTRA=$APT_PARTS/hlipc-bookworm-extra.sources

# "SITE SUITE TYPE" for every index apt is configured to fetch, ignoring
# the entries we added ourselves (so a changed mirror is picked up).
# --no-release-info: also what was never fetched (a fresh machine has no
# lists yet).
targets() {
	apt-get indextargets --no-release-info \
		--format '$(SITE) $(RELEASE) $(TARGET_OF)' \
		-o Dir::Etc::SourceParts=/dev/null "$@" 2>/dev/null || true
}
configured() {
	{
		targets
		for f in "$APT_PARTS"/*.list "$APT_PARTS"/*.sources; do
			[ -e "$f" ] && [ "$f" != "$EXTRA" ] || continue
			targets -o "Dir::Etc::SourceList=$f"
		done
	} | sort -u
}

# The Signed-By keyring of the stanza (deb822) or line (one-line format)
# that names SITE for bookworm; empty when apt's global keyring is used.
keyring_for() {
	local site=$1 f
	for f in "$APT_LIST" "$APT_PARTS"/*.list; do
		[ -e "$f" ] || continue
		sed -n "s|^deb\(-src\)\? *\[\([^]]*\)\] *${site%/}/\? .*bookworm.*|\2|p" "$f" |
			tr ' ' '\n' | sed -n 's/^signed-by=//p'
	done
	for f in "$APT_PARTS"/*.sources; do
		[ -e "$f" ] && [ "$f" != "$EXTRA" ] || continue
		awk -v site="${site%/}" '
			function flush() {
				if (uri && suite && key) print key
				uri = suite = 0; key = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^[ \t]*#/ { next }
			tolower($1) == "uris:" {
				for (i = 2; i <= NF; i++) { u = $i; sub(/\/$/, "", u); if (u == site) uri = 1 }
			}
			tolower($1) == "suites:" {
				for (i = 2; i <= NF; i++) if ($i == "bookworm" || $i == "bookworm-security") suite = 1
			}
			tolower($1) == "signed-by:" && NF == 2 { key = $2 }
			END { flush() }' "$f"
	done
}

have=$(configured)
site=$(awk '$2 == "bookworm" && $3 == "deb" { print $1; exit }' <<<"$have")
if [ -z "$site" ]; then
	echo "setup.sh: apt has no Debian 12 (bookworm) archive configured;" \
		"add one to $APT_PARTS/ and run again" >&2
	exit 1
fi
site=${site%/}
key=$(keyring_for "$site" | head -n 1)

stanzas=
add() { # SUITE TYPES
	stanzas+="Types: $2"$'\n'"URIs: $site"$'\n'"Suites: $1"$'\n'"Components: main"$'\n'
	[ -z "$key" ] || stanzas+="Signed-By: $key"$'\n'
	stanzas+=$'\n'
}
need() { # SUITE TYPE: is it missing?
	! grep -q "^$site/\? $1 $2\$" <<<"$have"
}
want=()
for pair in "bookworm-backports deb" "bookworm-backports deb-src" \
	"bookworm deb-src" "bookworm-updates deb-src"; do
	# shellcheck disable=SC2086
	need $pair && want+=("$pair")
done
# bookworm-updates is optional on some mirrors; only add its deb-src when
# the binary suite is configured too.
if ! grep -q " bookworm-updates deb\$" <<<"$have"; then
	want=("${want[@]/bookworm-updates deb-src/}")
fi

new=
for suite in bookworm-backports bookworm bookworm-updates; do
	types=
	for pair in ${want[@]+"${want[@]}"}; do
		case $pair in
		"$suite deb") types+=" deb" ;;
		"$suite deb-src") types+=" deb-src" ;;
		esac
	done
	[ -z "$types" ] || { add "$suite" "${types# }"; new+=" $suite(${types# })"; }
done

# The 6.12 kernel is updated through bookworm-security: the debug kernel
# (tools/vm/debug-kernel.sh) needs that suite's sources, from the security
# archive this machine already uses.
sec_site=$(awk '$2 == "bookworm-security" && $3 == "deb" { print $1; exit }' <<<"$have")
sec_site=${sec_site%/}
if [ -n "$sec_site" ] && ! grep -q "^$sec_site/\? bookworm-security deb-src\$" <<<"$have"; then
	sec_key=$(keyring_for "$sec_site" | head -n 1)
	stanzas+="Types: deb-src"$'\n'"URIs: $sec_site"$'\n'"Suites: bookworm-security"$'\n'"Components: main"$'\n'
	[ -z "$sec_key" ] || stanzas+="Signed-By: $sec_key"$'\n'
	stanzas+=$'\n'
	new+=" bookworm-security(deb-src, $sec_site)"
fi

if [ -z "$stanzas" ]; then
	rm -f "$EXTRA"
	say "apt sources: backports and deb-src already configured"
	exit 0
fi
content="# Added by habanalabs-ipc tools/setup.sh: the suites this project needs
# that this machine's own sources lack, from the same archive ($site).
# Remove this file to undo.

$stanzas"
if [ ! -f "$EXTRA" ] || [ "$(cat "$EXTRA")" != "$(printf '%s' "$content")" ]; then
	printf '%s' "$content" >"$EXTRA"
	say "apt sources: added$new from $site${key:+ (keyring $key)} in $EXTRA"
	echo changed
fi
