# shellcheck shell=bash
# A root tree made writable for a chroot without anything reaching it:
# sourced by tools/vm/trixie-chroot and tests/pkg/install-host.sh, which
# call these in a mount namespace of their own (unshare --mount), so that
# every mount goes with it.

# overlay_root LOWER DIR: a tmpfs on DIR and, on DIR/root, an overlay with
# LOWER read-only below and that tmpfs above.  (The upper layer cannot lie
# on LOWER's file system, which may be the host's /: overlayfs refuses
# overlapping layers.)
overlay_root() {
	local lower=$1 w=$2
	mount -t tmpfs -o mode=0755 hl-overlay "$w" &&
		mkdir "$w/upper" "$w/work" "$w/root" &&
		mount -t overlay -o "lowerdir=$lower,upperdir=$w/upper,workdir=$w/work" \
			hl-overlay-root "$w/root"
}

# chroot_mounts ROOT DIR...: what a chroot needs of the running system
# (the host's /proc, /sys and /dev; empty /tmp and /run), and each DIR of
# the host at its own path, writable: outer ones first, so that an inner
# one is not covered (a checkout under /tmp, packages in the checkout).
chroot_mounts() {
	local r=$1 d
	shift
	mount -t proc proc "$r/proc" &&
		mount --rbind /sys "$r/sys" &&
		mount --rbind /dev "$r/dev" &&
		mount -t tmpfs -o mode=1777 tmpfs "$r/tmp" &&
		mount -t tmpfs -o mode=0755 tmpfs "$r/run" || return 1
	while read -r d; do
		mkdir -p "$r$d" && mount --bind "$d" "$r$d" || return 1
	done < <(printf '%s\n' "$@" | sort -u)
}

# chroot_unmounts ROOT DIR...: undoes chroot_mounts ROOT DIR..., innermost
# first and lazily (a process started in the chroot may still be leaving).
chroot_unmounts() {
	local r=$1 m
	shift
	while read -r m; do
		! mountpoint -q "$m" || umount -R -l "$m" || return 1
	done < <(for m in "$@"; do printf '%s%s\n' "$r" "$m"; done | sort -ru
		printf '%s\n' "$r/tmp" "$r/run" "$r/proc" "$r/dev" "$r/sys")
}
