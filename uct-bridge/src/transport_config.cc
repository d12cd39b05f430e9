// SPDX-License-Identifier: MIT
#include "transport_config.h"

namespace gaudi_ipc {

ucs_config_field_t md_config_table[] = {
	{"", "", nullptr, ucs_offsetof(MdConfig, super),
	 UCS_CONFIG_TYPE_TABLE(uct_md_config_table)},

	{nullptr, nullptr, nullptr, 0, {}},
};

ucs_config_field_t iface_config_table[] = {
	{"", "", nullptr, ucs_offsetof(IfaceConfig, super),
	 UCS_CONFIG_TYPE_TABLE(uct_iface_config_table)},

	{"CHANNELS", "try",
	 "Move data through /dev/hl_ipc channels (one copy, device to device):\n"
	 " yes - channels only; memory they cannot reach is unreachable, and\n"
	 "       the interface does not open without /dev/hl_ipc,\n"
	 " no  - never; every transfer takes the staged DMA path (the source\n"
	 "       device's DMA engine copies into pinned host memory, the\n"
	 "       destination's copies out of it),\n"
	 " try - channels, and the staged path where channels cannot reach\n"
	 "       the memory (no habanalabs_ipc module, peer-to-peer-only\n"
	 "       device memory).",
	 ucs_offsetof(IfaceConfig, channels), UCS_CONFIG_TYPE_TERNARY},

	{"BW", "2100MBs",
	 "Bandwidth UCX assumes for the transport when it chooses between\n"
	 "transports.  The default was measured with the channel path on\n"
	 "emulated devices (Documentation/uct-bridge.md, \"Performance\").",
	 ucs_offsetof(IfaceConfig, bandwidth), UCS_CONFIG_TYPE_BW},

	{"LAT", "6us",
	 "Latency UCX assumes for one transfer (measured, as BW).",
	 ucs_offsetof(IfaceConfig, latency), UCS_CONFIG_TYPE_TIME},

	{"OVERHEAD", "5us",
	 "CPU time UCX assumes an operation costs the caller (measured, as BW).",
	 ucs_offsetof(IfaceConfig, overhead), UCS_CONFIG_TYPE_TIME},

	{"MAX_INFLIGHT", "64",
	 "Operations one interface keeps in flight; more return\n"
	 "UCS_ERR_NO_RESOURCE (UCX then queues them as pending).",
	 ucs_offsetof(IfaceConfig, max_inflight), UCS_CONFIG_TYPE_UINT},

	{"SYNC_COPY_MAX", "1m",
	 "Channel path: operations up to this size are copied inside the call\n"
	 "and complete at once; larger ones return UCS_INPROGRESS and are copied\n"
	 "by progress, SEG_SIZE at a time (or by the kernel, see ASYNC_COPIES).",
	 ucs_offsetof(IfaceConfig, sync_copy_max), UCS_CONFIG_TYPE_MEMUNITS},

	{"SEG_SIZE", "1m",
	 "Channel path: the most one progress call copies of a large operation\n"
	 "(how long progress may run: about SEG_SIZE / copy bandwidth).",
	 ucs_offsetof(IfaceConfig, seg_size), UCS_CONFIG_TYPE_MEMUNITS},

	{"ASYNC_COPIES", "n",
	 "Channel path: queue operations above SYNC_COPY_MAX on the kernel's\n"
	 "channel, whose own worker copies them while the caller goes on (copies\n"
	 "on different channels then run in parallel); completions come through\n"
	 "the channel's WAIT and the /dev/hl_ipc fd.  Off by default: handing a\n"
	 "copy to a kernel worker and back was measured several times slower\n"
	 "than copying in the caller (Documentation/uct-bridge.md).",
	 ucs_offsetof(IfaceConfig, async_copies), UCS_CONFIG_TYPE_BOOL},

	{"BCOPY_SIZE", "8k",
	 "Largest put_bcopy and get_bcopy: the size of the interface's\n"
	 "registered bounce buffer.  On the staged path, a buffered operation\n"
	 "larger than the peer's staging slot goes through a buffer of its own\n"
	 "in pieces, so processes with different settings work together.",
	 ucs_offsetof(IfaceConfig, bcopy_size), UCS_CONFIG_TYPE_MEMUNITS},

	{"STAGING_SIZE", "512k",
	 "Staged path: bytes of pinned host memory per staging slot, the largest\n"
	 "piece of a transfer.  Larger transfers are cut into pieces that the\n"
	 "two processes' DMA engines move in turn, one filling a piece while the\n"
	 "other empties the one before: smaller pieces overlap more, each costs a\n"
	 "DMA command submission on either side.  The default was measured on\n"
	 "emulated devices (Documentation/uct-bridge.md); tune it on hardware.",
	 ucs_offsetof(IfaceConfig, staging_size), UCS_CONFIG_TYPE_MEMUNITS},

	{"STAGING_SLOTS", "8",
	 "Staged path: slots this interface offers peers; pieces of transfers\n"
	 "towards it that are in flight at once (memory: SLOTS x SIZE, pinned in\n"
	 "this process and in each peer that puts or gets through it, so it\n"
	 "counts against both processes' RLIMIT_MEMLOCK).",
	 ucs_offsetof(IfaceConfig, staging_slots), UCS_CONFIG_TYPE_UINT},

	{"STAGING_DEPTH", "2",
	 "Staged path: pieces of one transfer in a peer's staging slots at once.\n"
	 "2 is double buffering: this process fills a piece while the peer\n"
	 "empties the one before, and the same two slots are used over and over\n"
	 "(the staging memory a transfer touches stays small).  More lets a\n"
	 "transfer run ahead of a slow peer.",
	 ucs_offsetof(IfaceConfig, staging_depth), UCS_CONFIG_TYPE_UINT},

	{"PEER_STAGING_MAX", "64m",
	 "Staged path: the largest staging memory (a peer's STAGING_SLOTS x\n"
	 "STAGING_SIZE) this interface accepts from a peer it moves data to or\n"
	 "from.  A peer that offers more is refused (UCS_ERR_EXCEEDS_LIMIT, and a\n"
	 "log line with both figures).",
	 ucs_offsetof(IfaceConfig, peer_staging_max), UCS_CONFIG_TYPE_MEMUNITS},

	{"PEER_PIN_MAX", "4m",
	 "Staged path: the most of peers' staging memory this interface pins\n"
	 "(maps for its devices) at once, whatever the peers offer.  It pins only\n"
	 "where its pieces of device memory go, a window per slot and device as\n"
	 "long as the longest piece moved through it (64 KiB at least), and lets\n"
	 "the least recently used windows go to stay within this; pieces are no\n"
	 "longer.  It counts against RLIMIT_MEMLOCK.",
	 ucs_offsetof(IfaceConfig, peer_pin_max), UCS_CONFIG_TYPE_MEMUNITS},

	{"PEER_TIMEOUT", "30s",
	 "Staged path: how long a piece waits for a peer that is alive but\n"
	 "neither takes it nor finishes it (stopped or hung), and how long the\n"
	 "peer may take to admit this process; the transfer then fails with\n"
	 "UCS_ERR_TIMED_OUT, and a caller asleep on the event fd is woken.  A\n"
	 "peer that exits fails its transfers at once.",
	 ucs_offsetof(IfaceConfig, peer_timeout), UCS_CONFIG_TYPE_TIME},

	{"DMA_TIMEOUT", "30s",
	 "Staged path: how long one DMA command submission may take.  One that\n"
	 "takes longer fails its pieces, once it has ended: what it moves is\n"
	 "never reused while it may still touch it.",
	 ucs_offsetof(IfaceConfig, dma_timeout), UCS_CONFIG_TYPE_TIME},

	{"SERVE_LINGER", "2ms",
	 "Staged path: a peer rings this interface already when it starts to\n"
	 "fill a slot with a put piece of 64 KiB or more; woken so, UCX's async\n"
	 "thread waits for such slots spinning, at most this long, instead of\n"
	 "sleeping until they are posted, so that waking overlaps the peer's\n"
	 "copy into staging.  0: never wait (and peers do not ring early).",
	 ucs_offsetof(IfaceConfig, serve_linger), UCS_CONFIG_TYPE_TIME},

	{"SERVE_SPIN", "200us",
	 "Staged path: after UCX's async thread served a piece, it stays awake,\n"
	 "spinning, this long for the next one even when no slot is being\n"
	 "filled, as a runtime's progress thread spins before it sleeps: a peer\n"
	 "that goes on with its next transfer then finds it awake and need not\n"
	 "ring (waking a sleeping thread costs the peer a system call and the\n"
	 "wake-up).  The cost is a CPU busy that long after each transfer\n"
	 "towards this process.  0: sleep at once unless slots are being filled.",
	 ucs_offsetof(IfaceConfig, serve_spin), UCS_CONFIG_TYPE_TIME},

	{nullptr, nullptr, nullptr, 0, {}},
};

}  // namespace gaudi_ipc
