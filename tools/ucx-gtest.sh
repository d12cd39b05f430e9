#!/usr/bin/env bash
# ucx-gtest.sh: UCX's own UCT gtest against the gaudi_ipc transport.
#
# Builds the UCT part of the gtest of Debian's UCX source package (fetched
# with apt-get source at the installed libucx0 version, never kept in the
# tree) with gaudi_ipc added to its transport lists, against the installed
# UCX libraries, and caches the build under /var/cache.  Then runs its
# gaudi_ipc cases in the VM on each kernel, on the channel path and on the
# staged path, and prints what ran, was skipped and failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CACHE=${HL_UCX_GTEST_CACHE:-/var/cache/hlipc-ucx-gtest}
JOBS=$(nproc)
BUILD=$TOP/build
KERNELS=()
PATHS=()
FILTER='*gaudi_ipc*'
OUT=
MODE=run
MEM=6144
UCX_TREE=
TIMEOUT=2400
EXTRA=()

usage() {
	cat <<EOF
usage: ucx-gtest.sh [options] [-- GTEST_ARGS...]

Build UCX's own gtest (its UCT tests) from Debian's ucx source package with
the gaudi_ipc transport in its transport lists, and run its gaudi_ipc cases
in the VM (tools/vm/run-vm, habanalabs_sim and habanalabs_ipc loaded) on
each kernel and path.  Prints per run: cases, ran, skipped, failed.

The build is cached under the cache directory, keyed by the UCX version,
the installed UCX's build settings, the compiler and this script's recipe
(the sources and the edits below); a second run only checks the key.

What the test build changes in UCX's gtest sources (nothing else; why:
Documentation/testing.md, "UCX's own gtest"):
  - test/gtest/uct/uct_test.h: gaudi_ipc joins UCT_TEST_NO_SELF_TLS, the
    list of intra- and inter-node transports every UCT test instantiates;
  - test/gtest/uct/test_md.cc: gaudi_ipc joins the memory-domain tests'
    list;
  - test/gtest/uct/uct_p2p_test.cc: the data tests trim their largest
    buffer at the memory domain's max_alloc only when the domain can
    allocate (UCT_MD_FLAG_ALLOC); a domain that allocates nothing (cma,
    knem, gaudi_ipc) reports max_alloc 0, which would skip every RMA case;
  - test/gtest/uct/test_p2p_am.cc: gaudi_ipc joins cma, knem and xpmem,
    the transports without active messages that uct_p2p_am_alignment
    exempts;
  - test/gtest/uct/test_uct_perf.cc: the perf envelopes run gaudi_ipc at
    most 1000 iterations per test, unchecked, as they run tcp: on the
    emulator under QEMU one operation takes up to milliseconds, and their
    100000-2000000 iterations outlast UCX's 15-minute watchdog;
  - test/gtest/uct/test_zcopy_comp.cc: issue1440 sends a hundredth of its
    1000000 small and 1000 large put_zcopy for gaudi_ipc: on the staged
    path under QEMU they outlast UCX's 15-minute watchdog;
  - test/gtest/uct/test_peer_failure.cc: test_uct_peer_failure_keepalive
    .killed skips gaudi_ipc: it fakes a peer's death by editing cma's and
    mm's endpoint internals; gaudi_ipc's ep_check sees a real death only.

options:
  -B, --build DIR    the project's build directory: its hl-ucx and plugin
                     are loaded, its modules (DIR/kmod/KVER) inserted
                     (default: build/ of this checkout; now $BUILD)
  -k, --kernel K     6.1, 6.12 or debug (repeatable; default: 6.1 and 6.12),
                     or trixie alone: Debian 13's UCX, kernel and root
                     (tools/vm/trixie-root.sh): the gtest is built against
                     trixie's UCX in that root (tools/vm/trixie-chroot),
                     the guest boots with it as its root, and -B names a
                     build of the project made there (default:
                     build/trixie-user)
  -p, --path P       channels (UCX_GAUDI_IPC_CHANNELS=y) or staged (=n)
                     (repeatable; default: both)
  -f, --filter F     gtest filter (default: $FILTER)
  -o, --out DIR      where each run's output goes (DIR/KERNEL-PATH/: cases,
                     log, results, summary; default: a new directory under
                     /var/tmp, printed)
  --timeout SEC      per VM run (default $TIMEOUT)
  --mem MIB          guest memory (default $MEM: UCX 1.18's uct_p2p_mix_test
                     allocates two buffers of 1 GiB for a transport without
                     active messages, and registers both)
  --cache DIR        build cache (default: \$HL_UCX_GTEST_CACHE, else
                     /var/cache/hlipc-ucx-gtest; now $CACHE); not under
                     /tmp, /var/tmp, /run or /root, which the guest covers
  --jobs N           parallel compile jobs (default: $JOBS)
  --ucx-source TREE  take UCX's source from TREE, an unpacked source of the
                     installed UCX version (a Debian source package, or
                     UCX's release of that version), instead of fetching
                     Debian's with apt-get source (for an archive that does
                     not serve it: trixie's)
  --build-only       build the gtest (or find it in the cache), print its
                     path, run nothing
  -h, --help         this text

GTEST_ARGS go to the gtest binary (e.g. -s SEED for UCX's random seed).

exit status: 0 if every run listed its cases and none failed; 1 if a case
failed or a run did not complete (its guest status is printed); 2 on
misuse or if the build failed.
EOF
}

die() {
	echo "ucx-gtest: $*" >&2
	exit 2
}
say() { printf '[ucx-gtest] %s\n' "$*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	-B | --build) BUILD=$2; shift 2 ;;
	-k | --kernel) KERNELS+=("$2"); shift 2 ;;
	-p | --path)
		case $2 in channels | staged) PATHS+=("$2") ;; *) die "--path is channels or staged, not '$2'" ;; esac
		shift 2
		;;
	-f | --filter) FILTER=$2; shift 2 ;;
	-o | --out) OUT=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--cache) CACHE=$2; shift 2 ;;
	--jobs) JOBS=$2; shift 2 ;;
	--build-only) MODE=build; shift ;;
	--ucx-source) UCX_TREE=$(realpath "$2") || die "--ucx-source: no directory '$2'"; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; EXTRA=("$@"); break ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
TRIXIE=0
if [[ " ${KERNELS[*]} " == *" trixie "* ]]; then
	[ ${#KERNELS[@]} = 1 ] ||
		die "-k trixie runs alone: trixie's UCX is another build of the gtest (run the other kernels separately)"
	TRIXIE=1
	[ "$BUILD" != "$TOP/build" ] || BUILD=$TOP/build/trixie-user
fi
[ ${#PATHS[@]} -gt 0 ] || PATHS=(channels staged)
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs wants a number, not '$JOBS'"
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, not '$TIMEOUT'"
[[ $MEM =~ ^[1-9][0-9]*$ ]] || die "--mem wants MiB, not '$MEM'"

# ---- the test build's recipe ---------------------------------------------
# Everything that decides the build besides UCX's version and settings: a
# change here gets a build directory of its own.
RECIPE=5

# The gtest sources the UCT cases need: UCX's test framework, its bundled
# GoogleTest, the UCT test files that instantiate for a transport like
# gaudi_ipc (test_mm, test_tag, tcp/ and ib/ instantiate only for their own
# transports; test_stats only with statistics, which Debian's UCX lacks),
# and the perf library the test_uct_perf cases drive.
GTEST_SOURCES=(
	test/gtest/common/main.cc test/gtest/common/test.cc
	test/gtest/common/test_gtest_cmn.cc test/gtest/common/mem_buffer.cc
	test/gtest/common/test_helpers.cc test/gtest/common/test_watchdog.cc
	test/gtest/common/test_perf.cc
	test/gtest/common/googletest/gtest.cc
	test/gtest/common/googletest/gtest-death-test.cc
	test/gtest/common/googletest/gtest-filepath.cc
	test/gtest/common/googletest/gtest-port.cc
	test/gtest/common/googletest/gtest-printers.cc
	test/gtest/common/googletest/gtest-test-part.cc
	test/gtest/common/googletest/gtest-typed-test.cc
	test/gtest/uct/uct_test.cc test/gtest/uct/uct_p2p_test.cc
	test/gtest/uct/test_amo.cc test/gtest/uct/test_amo_add_xor.cc
	test/gtest/uct/test_amo_and_or.cc test/gtest/uct/test_amo_cswap.cc
	test/gtest/uct/test_amo_fadd_fxor.cc test/gtest/uct/test_amo_fand_for.cc
	test/gtest/uct/test_amo_swap.cc test/gtest/uct/test_event.cc
	test/gtest/uct/test_fence.cc test/gtest/uct/test_flush.cc
	test/gtest/uct/test_many2one_am.cc test/gtest/uct/test_md.cc
	test/gtest/uct/test_p2p_am.cc test/gtest/uct/test_p2p_err.cc
	test/gtest/uct/test_p2p_mix.cc test/gtest/uct/test_p2p_rma.cc
	test/gtest/uct/test_peer_failure.cc test/gtest/uct/test_pending.cc
	test/gtest/uct/test_progress.cc test/gtest/uct/test_uct_ep.cc
	test/gtest/uct/test_uct_perf.cc test/gtest/uct/test_zcopy_comp.cc
	test/gtest/uct/v2/test_uct_query.cc
	src/tools/perf/lib/libperf.c src/tools/perf/lib/libperf_memory.c
	src/tools/perf/lib/libperf_thread.c src/tools/perf/lib/uct_tests.cc
	src/tools/perf/lib/ucp_tests.cc
)

# edit FILE DESCRIPTION PERL: change FILE with a perl substitution, which
# must change it (a source that no longer looks as expected fails loudly).
edit() {
	local file=$1 what=$2 expr=$3
	cp "$file" "$file.orig"
	perl -0pi -e "$expr" "$file"
	if cmp -s "$file" "$file.orig"; then
		die "the test build's edit '$what' does not apply to $file: UCX's source changed; update tools/ucx-gtest.sh"
	fi
	rm -f "$file.orig"
}

# The edits name what they change, so that one recipe serves UCX 1.13
# (Debian 12) and 1.18 (Debian 13); where the two differ, the edit says
# which version it is for.
# shellcheck disable=SC2016 # perl, not shell, expands $1
apply_edits() { # TREE
	local g=$1/test/gtest/uct minor
	minor=$(sed -n 's/^define(\[ucx_ver_minor\], \([0-9]*\)).*/\1/p' "$1/configure.ac")
	edit "$g/uct_test.h" "gaudi_ipc in UCT_TEST_NO_SELF_TLS" \
		's/(#define UCT_TEST_NO_SELF_TLS \\\n(?:.*\\\n)*?\s*knem)\n/$1, \\\n    gaudi_ipc\n/'
	edit "$g/test_md.cc" "gaudi_ipc in test_md's list" \
		's/(\n\s*)rdmacm \\\n/$1rdmacm, \\$1gaudi_ipc \\\n/'
	# 1.13's md_attr() has the capabilities in .cap, 1.18's (v2) at the top.
	edit "$g/uct_p2p_test.cc" "max_alloc trims only a domain that allocates" \
		's/\n(\s*)(max_length = ucs_min\(max_length, sender\(\)\.md_attr\(\)\.((?:cap\.)?)max_alloc \/ 2\.5\);)/\n$1if (sender().md_attr().$3flags & UCT_MD_FLAG_ALLOC) {\n$1    $2\n$1}/'
	edit "$g/test_p2p_am.cc" "gaudi_ipc beside cma in the AM alignment exemptions" \
		's/(has_transport\("cma"\) \|\|)/$1\n            has_transport("gaudi_ipc") ||/'
	edit "$g/test_uct_perf.cc" "gaudi_ipc's perf envelope capped as tcp's" \
		's/if \(has_transport\("tcp"\)/if (has_transport("gaudi_ipc") || has_transport("tcp")/'
	edit "$g/test_zcopy_comp.cc" "issue1440 sends a hundredth for gaudi_ipc" \
		's/(\n(\s*)int num_large_sends = 1000 \/ ucs::test_time_multiplier\(\);\n)/$1$2if (has_transport("gaudi_ipc")) {\n$2    num_small_sends \/= 100;\n$2    num_large_sends \/= 100;\n$2}\n/'
	# Its keys are packed into a uint64_t each (every pack call of the
	# test, one in 1.13, two in 1.18).
	edit "$g/test_md.cc" "invalidate packs the whole key" \
		's{(UCS_TEST_SKIP_COND_P\(test_md, invalidate,.*?\n\}\n)}{my $b = $1; $b =~ s/std::set<uint64_t> keys_set;/std::set<std::string> keys_set;/; $b =~ s/uint64_t key;/std::string key(md_attr().rkey_packed_size, 0);/; $b =~ s/&pack_params,(\s*)&key\)/&pack_params,$1&key[0])/g; $b}se'
	if [ "$minor" = 13 ]; then
		# 1.18 runs 64 rounds anyway.
		edit "$g/test_md.cc" "invalidate runs a twentieth of its rounds for gaudi_ipc" \
			's/(const int limit\s*= )2000( \/ ucs::test_time_multiplier\(\);)/$1(GetParam().md_name == "gaudi_ipc" ? 100 : 2000)$2/'
	fi
	edit "$g/test_peer_failure.cc" "keepalive.killed skips gaudi_ipc" \
		's/(UCS_TEST_SKIP_COND_P\(test_uct_peer_failure_keepalive, killed,\n.*\n\{\n)/$1    if (has_transport("gaudi_ipc")) {\n        UCS_TEST_SKIP_R("gaudi_ipc detects only a real process death, which this case fakes");\n    }\n/'
}

# The test framework's GPU memory types need the GPU runtimes' headers
# (trixie's UCX is built with ROCm); the gaudi_ipc cases use host memory
# only, and no UCX header holds a field that depends on them, so the test
# build goes without them.
without_gpus() { # CONFIG_H
	printf '%s\n' "/* ucx-gtest.sh: the test build goes without GPU runtimes */" \
		"#undef HAVE_CUDA" "#undef HAVE_ROCM" "#undef HAVE_HIP" >>"$1"
}

# Compiler flags as UCX's own gtest build has them (test/gtest/Makefile.am,
# config/m4/compiler.m4), with the installed UCX's config.h; UCX's
# generated headers (uct/api/version.h, ucp/api/ucp_version.h) come from
# libucx-dev in /usr/include.
write_makefile() { # DIR TREE
	local dir=$1 tree=$2 s o objs=()
	{
		echo "# Written by tools/ucx-gtest.sh: UCX's gtest, UCT part, against the installed UCX."
		echo "TREE := $tree"
		echo "CPPFLAGS := -DHAVE_CONFIG_H -DCPU_FLAGS='\"\"' -DTOP_SRCDIR='\"\$(TREE)\"' -DGTEST_UCM_HOOK_LIB_DIR='\"/nonexistent\"' -I$dir/include -I\$(TREE)/src -I\$(TREE)/test -I\$(TREE)/test/gtest"
		echo "CFLAGS := -g -O1 -fopenmp"
		echo "CXXFLAGS := -g -O1 -fopenmp -std=c++11 -fno-tree-vectorize"
		echo "LIBS := -luct -lucp -lucs -lucm -lpthread -ldl -lrt -lm"
		for s in "${GTEST_SOURCES[@]}"; do
			o=obj/${s%.*}.o
			objs+=("$o")
			echo "$o: \$(TREE)/$s"
			echo "	@mkdir -p \$(dir \$@)"
			case $s in
			*.c) echo "	gcc \$(CPPFLAGS) \$(CFLAGS) -c \$< -o \$@" ;;
			*) echo "	g++ \$(CPPFLAGS) \$(CXXFLAGS) -c \$< -o \$@" ;;
			esac
		done
		echo "gtest: ${objs[*]}"
		echo "	g++ -fopenmp -o \$@.tmp \$^ -Wl,--dynamic-list-data \$(LIBS) && mv \$@.tmp \$@"
	} >"$dir/Makefile"
}

# The cache key: this recipe and everything of the machine that decides
# the result.
recipe_key() {
	{
		echo "recipe $RECIPE"
		"$HERE/ucx-debian-source.sh" version
		ucx_info -b
		g++ --version | head -n 1
		printf '%s\n' "${GTEST_SOURCES[@]}"
		declare -f edit apply_edits without_gpus write_makefile
	} | sha256sum | cut -c1-16
}

# What the build needs, as tools/setup.d/packages/ucx-gtest.list says:
# installed here if missing (as root), with the deb-src entries apt-get
# source needs; nothing is done when all is there.
need_packages() {
	local list=$HERE/setup.d/packages/ucx-gtest.list p missing=() changed
	for p in $(sed 's/#.*//' "$list"); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ "$(id -u)" = 0 ] || {
		[ ${#missing[@]} = 0 ] ||
			die "missing packages: ${missing[*]}; run tools/setup.sh as root (or apt-get install them)"
		return 0
	}
	changed=$(bash "$HERE/setup.d/apt-sources.sh") || die "could not check apt's deb-src entries (tools/setup.d/apt-sources.sh)"
	if [ ${#missing[@]} -gt 0 ] || [ -n "$changed" ]; then
		say "apt-get update${changed:+ (deb-src entries added)}"
		apt-get -q -o DPkg::Lock::Timeout=900 update >/dev/null ||
			die "apt-get update failed"
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		say "installing ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=900 \
			install -y --no-install-recommends "${missing[@]}" >/dev/null ||
			die "could not install ${missing[*]}"
	fi
}

ready_builds() { # newest first
	# shellcheck disable=SC2012
	ls -td "$CACHE"/*/ready 2>/dev/null || true
}

build_gtest() { # sets GTEST_BIN
	local version key dir t0 mk last n
	version=$("$HERE/ucx-debian-source.sh" version) || exit 2
	key=$(recipe_key)
	dir=$CACHE/$(tr '~+:' '___' <<<"$version")-$key
	GTEST_BIN=$dir/gtest
	if [ -f "$dir/ready" ] && [ -x "$GTEST_BIN" ]; then
		say "cached: UCX $version gtest in $dir"
		return 0
	fi
	if ! mkdir -p "$CACHE" 2>/dev/null || [ ! -w "$CACHE" ]; then
		die "cannot write the cache $CACHE: run as root or pass --cache DIR"
	fi
	exec 9>"$CACHE/.lock"
	if ! flock -n 9; then
		say "another build holds $CACHE/.lock; waiting for it"
		flock 9
	fi
	if [ -f "$dir/ready" ] && [ -x "$GTEST_BIN" ]; then
		say "built meanwhile: $dir"
		exec 9>&-
		return 0
	fi
	# In the trixie root, its own packages are what there is.
	[ -n "${HL_UCX_GTEST_IN_ROOT:-}" ] || need_packages
	rm -rf "$dir"
	mkdir -p "$dir/include"
	if [ -n "$UCX_TREE" ]; then
		"$HERE/ucx-debian-source.sh" check "$UCX_TREE" || exit 2
		say "UCX's source from $UCX_TREE"
		cp -a "$UCX_TREE" "$dir/ucx"
	else
		"$HERE/ucx-debian-source.sh" -q fetch "$dir" >/dev/null || exit 2
	fi
	apply_edits "$dir/ucx"
	# The installed build's own settings, as the transport is built with.
	ucx_info -b >"$dir/include/config.h"
	without_gpus "$dir/include/config.h"
	write_makefile "$dir" "$dir/ucx"
	say "building UCX $version's gtest (UCT part, ${#GTEST_SOURCES[@]} files) with $JOBS jobs; log: $dir/build.log"
	t0=$(date +%s)
	make -C "$dir" -j"$JOBS" gtest >"$dir/build.log" 2>&1 &
	mk=$!
	last=$t0
	while kill -0 "$mk" 2>/dev/null; do
		sleep 2
		[ $(($(date +%s) - last)) -ge 60 ] || continue
		last=$(date +%s)
		n=$(find "$dir/obj" -name '*.o' 2>/dev/null | wc -l)
		say "$(((last - t0) / 60)) min: $n of ${#GTEST_SOURCES[@]} files compiled"
	done
	wait "$mk" || { tail -n 30 "$dir/build.log" >&2; die "the gtest build failed (full log: $dir/build.log)"; }
	echo "$(($(date +%s) - t0))" >"$dir/build.seconds"
	# A changed recipe builds afresh anyway: the objects (most of the
	# build's 190 MB) are not worth keeping.
	rm -rf "$dir/obj"
	echo "$key" >"$dir/ready"
	say "built in $(cat "$dir/build.seconds") s: $GTEST_BIN"
	# Keep the two newest builds.
	for r in $(ready_builds | tail -n +3); do
		say "removing the old build ${r%/ready}"
		rm -rf "${r%/ready}"
	done
	exec 9>&-
}

# Trixie's gtest: this script's build, run in the trixie root, against
# its UCX, cached beside bookworm's.
build_gtest_trixie() { # sets GTEST_BIN
	local out
	mkdir -p "$CACHE/trixie" 2>/dev/null && [ -w "$CACHE/trixie" ] ||
		die "cannot write the cache $CACHE/trixie: run as root or pass --cache DIR"
	out=$("$TOP/tools/vm/trixie-chroot" --show "$CACHE/trixie" ${UCX_TREE:+--show "$UCX_TREE"} -- \
		env HL_UCX_GTEST_IN_ROOT=1 "$HERE/ucx-gtest.sh" --build-only \
		--cache "$CACHE/trixie" --jobs "$JOBS" ${UCX_TREE:+--ucx-source "$UCX_TREE"}) ||
		die "the gtest build in the trixie root failed"
	GTEST_BIN=$(tail -n 1 <<<"$out")
	[ -x "$GTEST_BIN" ] || die "the trixie root's build gave no gtest binary ('$GTEST_BIN')"
}

if [ "$TRIXIE" = 1 ] && [ -z "${HL_UCX_GTEST_IN_ROOT:-}" ]; then
	build_gtest_trixie
else
	build_gtest
fi
if [ "$MODE" = build ]; then
	echo "$GTEST_BIN"
	exit 0
fi

# ---- the runs ----------------------------------------------------------------
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || die "no build directory $BUILD (configure and build the project first, or pass --build)"
HL_UCX=$BUILD/uct-bridge/hl-ucx
[ -x "$HL_UCX" ] || die "$HL_UCX not found: build the project (its uct-bridge) in $BUILD first"
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d /var/tmp/ucx-gtest.XXXXXX)
else
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
fi
say "output in $OUT"

kver_of() { # SERIES -> the kernel release run-vm boots
	if [ "$1" = trixie ]; then
		# shellcheck disable=SC1090
		(. "$("$TOP/tools/vm/trixie-root.sh" --env)" && echo "$HLTX_KVER")
	elif [ "$1" = debug ]; then
		# shellcheck disable=SC1090
		(. "$("$TOP/tools/vm/debug-kernel.sh" --env)" && echo "$HLDK_KVER")
	else
		"$TOP/tools/vm/kernels.sh" "$1"
	fi
}

declare -A SUMMARY STATUS RUN_SECONDS
rc=0
for k in "${KERNELS[@]}"; do
	kver=$(kver_of "$k") || die "kernel $k is not available (tools/vm/kernels.sh, tools/vm/debug-kernel.sh)"
	root=()
	kmods=$BUILD/kmod/$kver
	kver_arg=$kver
	if [ "$k" = trixie ]; then
		# Trixie's root, with the gtest shown in it; the modules are the
		# main build's (trixie's userspace build has none).
		# shellcheck disable=SC1090
		root=(--root "$(. "$("$TOP/tools/vm/trixie-root.sh" --env)" && echo "$HLTX_ROOT")"
			--show "$(dirname "$GTEST_BIN")")
		kmods=$(dirname "$BUILD")/kmod/$kver
		kver_arg=trixie
	fi
	for p in "${PATHS[@]}"; do
		case $p in channels) channels=y ;; staged) channels=n ;; esac
		run=$OUT/$k-$p
		rm -rf "$run"
		mkdir -p "$run"
		say "kernel $k, $p path (UCX_GAUDI_IPC_CHANNELS=$channels)"
		st=0
		t0=$(date +%s)
		(cd "$BUILD" && "$TOP/tools/vm/run-vm" --quiet --kernel "$kver_arg" "${root[@]}" \
			--kmod-dir "$kmods" \
			--insmod "habanalabs_sim num_devices=2" --insmod habanalabs_ipc \
			--rw "$run" --timeout "$TIMEOUT" --mem "$MEM" \
			--env "UCX_GAUDI_IPC_CHANNELS=$channels" -- \
			"$TOP/tests/uct/run-bridge-tests.sh" \
			"$HERE/ucx-gtest-run.sh" --filter "$FILTER" --out "$run" \
			--label "$k $p" "$GTEST_BIN" "$HL_UCX" -- ${EXTRA[@]+"${EXTRA[@]}"}) ||
			st=$?
		STATUS[$k-$p]=$st
		RUN_SECONDS[$k-$p]=$(($(date +%s) - t0))
		SUMMARY[$k-$p]=$(cat "$run/summary" 2>/dev/null || echo "no summary")
		[ "$st" = 0 ] || rc=1
	done
done

echo
echo "UCX gtest, gaudi_ipc cases (filter '$FILTER'); output in $OUT"
printf '%-8s %-9s %6s %5s %8s %7s %6s  %s\n' kernel path cases ran skipped failed time status
for k in "${KERNELS[@]}"; do
	for p in "${PATHS[@]}"; do
		# "cases N ran N skipped N failed N"
		read -r -a f <<<"${SUMMARY[$k-$p]}"
		cases=${f[1]:--} ran=${f[3]:--} skipped=${f[5]:--} failed=${f[7]:--}
		printf '%-8s %-9s %6s %5s %8s %7s %5ss  %s\n' "$k" "$p" "$cases" "$ran" "$skipped" "$failed" \
			"${RUN_SECONDS[$k-$p]}" \
			"$([ "${STATUS[$k-$p]}" = 0 ] && echo ok || echo "exit ${STATUS[$k-$p]}")"
	done
done
exit $rc
