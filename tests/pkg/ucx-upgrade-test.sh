# shellcheck shell=bash
# A UCX update, as the admin guide describes it (sourced by
# install-chroot.sh, with ucx-gaudi-ipc installed and UCXV, DEBS set):
#  - the installed UCX packages, repacked with a newer version, in a local
#    repository that apt sees alone: apt-get upgrade keeps it back,
#    full-upgrade removes ucx-gaudi-ipc for it;
#  - dpkg -i installs it and leaves ucx-gaudi-ipc's dependency broken
#    (apt-get check says so), and hl-ucx then refuses the plugin (exit
#    126, both versions named); with the original libucx0 back, hl-ucx
#    works again;
#  - ucx-gaudi-ipc rebuilt for it (repacked so): apt-get install of it from
#    a file takes the new UCX with it, and in the repository apt-get
#    upgrade installs both.
# Userspace only: dpkg, apt and hl-ucx's check.

ucx_upgrade_test() {
	# What an update of UCX in the archive would be: Debian's UCX packages
	# installed here, repacked with a newer version, in a local repository
	# that apt sees alone; and ucx-gaudi-ipc as a rebuild against it would be.
	NEWV=$UCXV+hltest1
	REPO=/run/out/repo
	mkdir -p "$REPO/lists/partial" "$REPO/cache/archives/partial"
	repack() { # PACKAGE VERSION DEB: the installed PACKAGE, as VERSION
		local d=/run/out/repack-$1
		rm -rf "$d"
		mkdir -p "$d/DEBIAN"
		# (cp -a --parents of an absolute path fails on Debian 12's coreutils.)
		dpkg -L "$1" | while read -r f; do
			if [ -L "$f" ] || [ -f "$f" ]; then (cd / && cp -a --parents "${f#/}" "$d") || exit 1; fi
		done || fail "cannot copy the files of $1"
		dpkg-query -s "$1" | sed -E -e '/^Status:/d' -e "s/^Version: .*/Version: $2/" \
			-e "s/libucx0 \\(= $(re "$UCXV")\\)/libucx0 (= $2)/" >"$d/DEBIAN/control"
		dpkg-deb -Znone --root-owner-group -b "$d" "$3" >/dev/null || fail "cannot repack $1 $2"
		rm -rf "$d"
	}
	UCXPKGS=$(dpkg-query -W -f '${Package} ${Status}\n' libucx0 libucx-dev ucx-utils 2>/dev/null |
		awk '/installed$/ { print $1 }')
	for p in $UCXPKGS; do
		repack "$p" "$NEWV" "$REPO/${p}_new.deb"
	done
	repack libucx0 "$UCXV" /run/out/libucx0-old.deb
	APT=(apt-get -q -o Debug::NoLocking=1 -o APT::Sandbox::User=root
		-o "Dir::Etc::SourceList=$REPO/sources.list" -o Dir::Etc::SourceParts=/nonexistent
		-o "Dir::State::Lists=$REPO/lists" -o "Dir::Cache=$REPO/cache")
	apt_local() { "${APT[@]}" "$@"; }
	echo "deb [trusted=yes] file:$REPO ./" >"$REPO/sources.list"
	index() {
		(cd "$REPO" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null) || fail "dpkg-scanpackages"
		"${APT[@]}" update >/run/out/apt-update.log 2>&1 || { cat /run/out/apt-update.log >&2; fail "apt-get update"; }
	}
	index
	echo "the repository has: $(cd "$REPO" && ls ./*.deb | tr '\n' ' ')"
	run_rc 0 apt-upgrade apt_local -s upgrade
	has apt-upgrade.out "kept back"
	! grep -q "^Inst libucx0 " /run/out/apt-upgrade.out || fail "apt-get upgrade installs libucx0 $NEWV"
	echo "ok: apt-get upgrade keeps libucx0 $NEWV back: $(sed -n '/kept back/{n;p}' /run/out/apt-upgrade.out | tr -s ' ')"
	run_rc 0 apt-full apt_local -s full-upgrade
	has apt-full.out "^Remv ucx-gaudi-ipc "
	has apt-full.out "^Inst libucx0 \[$(re "$UCXV")\] \($(re "$NEWV") "
	echo "ok: apt-get full-upgrade removes ucx-gaudi-ipc to install libucx0 $NEWV"
	# dpkg alone does not check what installed packages want of a package it
	# upgrades: it installs the new libucx0 and leaves ucx-gaudi-ipc's
	# dependency broken, which apt then reports; hl-ucx refuses the plugin.
	run_rc 0 dpkg-new dpkg -i "$REPO/libucx0_new.deb"
	[ "$(dpkg-query -W -f '${Version}' libucx0)" = "$NEWV" ] || fail "dpkg did not install libucx0 $NEWV"
	run_rc 100 apt-check apt_local check
	cat /run/out/apt-check.err >>/run/out/apt-check.out
	has apt-check.out "ucx-gaudi-ipc : Depends: libucx0 \(= $(re "$UCXV")\) but $(re "$NEWV") is (installed|to be installed)"
	echo "ok: dpkg -i installs libucx0 $NEWV; apt-get check then says: $(grep -m1 'ucx-gaudi-ipc : Depends' /run/out/apt-check.out | sed 's/^ *//')"
	run_rc 126 hl-ucx-mismatch hl-ucx ucx_info -d
	has hl-ucx-mismatch.err "built against libucx0 $(re "$UCXV"), but libucx0 $(re "$NEWV")"
	! grep -q gaudi_ipc /run/out/hl-ucx-mismatch.out || fail "hl-ucx ran ucx_info with the mismatched plugin"
	echo "ok: hl-ucx refuses the plugin: $(head -n 1 /run/out/hl-ucx-mismatch.err)"
	run_rc 0 dpkg-old dpkg -i /run/out/libucx0-old.deb
	run_rc 0 ucx-info-again hl-ucx ucx_info -d
	has ucx-info-again.out "# +Transport: gaudi_ipc\$"
	run_rc 0 apt-check-again apt_local check
	echo "ok: libucx0 $UCXV back, hl-ucx loads the plugin again, apt-get check is content"
	# The rebuild: its version names the new UCX, it depends on it.
	d=/run/out/rebuilt
	dpkg-deb -R "$(deb_of ucx-gaudi-ipc)" "$d" || fail "dpkg-deb -R"
	UV=$(sed -n 's/^Version: //p' "$d/DEBIAN/control")
	sed -E -i -e "s/^Version: .*/Version: ${UV%+ucx*}+ucx$(tr ':-' '++' <<<"$NEWV")/" \
		-e "s/libucx0 \\(= $(re "$UCXV")\\)/libucx0 (= $NEWV)/" "$d/DEBIAN/control"
	dpkg-deb -Znone --root-owner-group -b "$d" /run/out/ucx-gaudi-ipc_rebuilt.deb >/dev/null ||
		fail "cannot repack ucx-gaudi-ipc"
	rm -rf "$d"
	# From a file, apt takes the new UCX from the repository with it.
	run_rc 0 apt-file apt_local -s install /run/out/ucx-gaudi-ipc_rebuilt.deb
	has apt-file.out "^Inst ucx-gaudi-ipc "
	has apt-file.out "^Inst libucx0 \[$(re "$UCXV")\] \($(re "$NEWV") "
	! grep -Eq "^Remv " /run/out/apt-file.out || fail "apt-get install of the rebuild removes: $(grep '^Remv ' /run/out/apt-file.out)"
	echo "ok: apt-get install of the rebuilt ucx-gaudi-ipc from a file installs libucx0 $NEWV with it, removes nothing"
	# From the repository, apt-get upgrade installs both.
	mv /run/out/ucx-gaudi-ipc_rebuilt.deb "$REPO/"
	index
	run_rc 0 apt-rebuilt apt_local -s upgrade
	has apt-rebuilt.out "^Inst ucx-gaudi-ipc "
	has apt-rebuilt.out "^Inst libucx0 \[$(re "$UCXV")\] \($(re "$NEWV") "
	! grep -Eq "^Remv |kept back" /run/out/apt-rebuilt.out || fail "apt-get upgrade still removes or keeps back: $(grep -E '^Remv |kept back' /run/out/apt-rebuilt.out)"
	echo "ok: with ucx-gaudi-ipc rebuilt for it, apt-get upgrade installs both: $(grep '^Inst ucx-gaudi-ipc' /run/out/apt-rebuilt.out)"
	dpkg --audit >/run/out/audit.log 2>&1
	[ ! -s /run/out/audit.log ] || { cat /run/out/audit.log >&2; fail "dpkg --audit reports problems"; }
	rm -rf "$REPO" /run/out/libucx0-old.deb
}
