/* SPDX-License-Identifier: MIT */
/*
 * hlthunk.h - userspace interface to Habana Gaudi devices and to the
 * node-local device-to-device copy channels of /dev/hl_ipc.
 *
 * The hlthunk_* calls below carry the same names, prototypes, types and
 * return conventions as HabanaAI hl-thunk, so a runtime built against
 * hl-thunk links against this library unchanged for these calls.  The
 * hlthunk_ipc_* calls are this library's own.
 *
 * Conventions (see Documentation/libhlthunk.md for the full reference):
 *  - calls returning int return 0 (or a non-negative value documented per
 *    call) on success and a negative errno value (-EINVAL, -EBUSY, ...) on
 *    failure; errno is set to the positive value as well;
 *  - calls returning a uint64_t handle or device address return 0 on
 *    failure and set errno;
 *  - every call is thread-safe.
 */
#ifndef HLTHUNK_H
#define HLTHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define hlthunk_public __attribute__((visibility("default")))

/* Sizes of the strings inside struct hlthunk_hw_ip_info (uapi values). */
#define HLTHUNK_INFO_VERSION_MAX_LEN	128
#define HLTHUNK_INFO_CARD_NAME_MAX_LEN	16

/* Node name patterns of the real driver on current kernels. */
#define HLTHUNK_MAX_MINOR		256
#define HLTHUNK_DEV_NAME_PRIMARY	"/dev/accel/accel%d"
#define HLTHUNK_DEV_NAME_CONTROL	"/dev/accel/accel_controlD%d"

enum hlthunk_node_type {
	HLTHUNK_NODE_PRIMARY,
	HLTHUNK_NODE_CONTROL,
	HLTHUNK_NODE_XE,
	HLTHUNK_NODE_MAX
};

enum hlthunk_device_name {
	HLTHUNK_DEVICE_GOYA = 0,
	HLTHUNK_DEVICE_GRECO = 1,
	HLTHUNK_DEVICE_GAUDI = 2,
	HLTHUNK_DEVICE_INVALID = 3,
	HLTHUNK_DEVICE_DONT_CARE = 4,
	HLTHUNK_DEVICE_GAUDI2 = 5,
	HLTHUNK_DEVICE_GAUDI_HL2000M = 6,
	HLTHUNK_DEVICE_GAUDI3 = 7,
	HLTHUNK_DEVICE_GAUDI2B = 8,
	HLTHUNK_DEVICE_FS1 = 9,
	HLTHUNK_DEVICE_GAUDI2C = 10,
	HLTHUNK_DEVICE_GAUDI2D = 11,
	HLTHUNK_DEVICE_MAX
};

/* Layout identical to hl-thunk's; fields the devices do not report are 0. */
struct hlthunk_hw_ip_info {
	uint64_t sram_base_address;
	uint64_t dram_base_address;
	uint64_t dram_size;
	uint32_t sram_size;
	uint32_t num_of_events;
	uint32_t device_id;
	uint32_t cpld_version;
	uint32_t psoc_pci_pll_nr;
	uint32_t psoc_pci_pll_nf;
	uint32_t psoc_pci_pll_od;
	uint32_t psoc_pci_pll_div_factor;
	uint16_t tpc_enabled_mask;
	uint8_t dram_enabled;
	uint8_t cpucp_version[HLTHUNK_INFO_VERSION_MAX_LEN];
	uint32_t module_id;
	uint8_t card_name[HLTHUNK_INFO_CARD_NAME_MAX_LEN];
	uint32_t decoder_enabled_mask;
	uint8_t mme_master_slave_mode;
	uint64_t tpc_enabled_mask_ext;
	uint64_t dram_page_size;
	uint16_t first_available_interrupt_id;
	uint32_t edma_enabled_mask;
	uint16_t server_type;
	uint64_t pdma_user_owned_ch_mask;
	uint16_t number_of_user_interrupts;
	uint64_t device_mem_alloc_default_page_size;
	uint64_t nic_ports_mask;
	uint8_t interposer_version;
	uint8_t substrate_version;
	uint64_t nic_ports_external_mask;
	uint32_t mme_enabled_mask;
	uint8_t odp_supported;
	uint8_t security_enabled;
	uint8_t revision_id;
	uint16_t tpc_interrupt_id;
	uint64_t engine_core_interrupt_reg_addr;
	uint32_t rotator_enabled_mask;
	uint32_t sched_arc_enabled_mask;
	uint64_t reserved_dram_size;
};

struct hlthunk_cs_in {
	void *chunks_restore;	/* array of the uapi's struct hl_cs_chunk */
	void *chunks_execute;	/* array of the uapi's struct hl_cs_chunk */
	uint32_t num_chunks_restore;
	uint32_t num_chunks_execute;
	uint32_t flags;
};

struct hlthunk_cs_out {
	uint64_t seq;
	uint32_t status;
	uint16_t sob_count_before_submission;
};

/* ---- Devices ---------------------------------------------------------- */

/* Opens the compute node of the first device of that ASIC type that can be
 * opened (or of the device at PCI address busid).  Returns an fd, or a
 * negative errno; -EBUSY when the device is already open elsewhere. */
hlthunk_public int hlthunk_open(enum hlthunk_device_name device_name,
				const char *busid);
/* Opens the control node with index dev_id (or of the device at busid). */
hlthunk_public int hlthunk_open_control(int dev_id, const char *busid);
/* Closes fd and forgets every cached registration made through it. */
hlthunk_public int hlthunk_close(int fd);
/* Number of devices of that ASIC type (HLTHUNK_DEVICE_DONT_CARE: all). */
hlthunk_public int hlthunk_get_device_count(enum hlthunk_device_name device_name);
hlthunk_public int hlthunk_get_hw_ip_info(int fd,
					struct hlthunk_hw_ip_info *hw_ip);
/* HLTHUNK_DEVICE_INVALID when fd is not a device this library knows. */
hlthunk_public enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd);
/* Writes "dddd:bb:dd.f" (NUL-terminated, at most len bytes). */
hlthunk_public int hlthunk_get_pci_bus_id_from_fd(int fd, char *pci_bus_id,
						int len);

/* ---- Device memory ---------------------------------------------------- */

/* Returns an opaque handle, 0 on failure. page_size 0: device default. */
hlthunk_public uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size,
						uint64_t page_size,
						bool contiguous, bool shared);
hlthunk_public int hlthunk_device_memory_free(int fd, uint64_t handle);
/* Returns the device virtual address, 0 on failure. */
hlthunk_public uint64_t hlthunk_device_memory_map(int fd, uint64_t handle,
						uint64_t hint_addr);
/* Pins host memory and maps it for the device; returns a device VA or 0. */
hlthunk_public uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
						uint64_t hint_addr,
						uint64_t host_size);
hlthunk_public int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr);
/* Exports device memory as a dma-buf; returns its fd or a negative errno.
 * addr is a device address inside an allocation; flags are open flags of
 * the new fd (O_RDWR, O_CLOEXEC). */
hlthunk_public int hlthunk_device_memory_export_dmabuf_fd(int fd,
							uint64_t addr,
							uint64_t size,
							uint32_t flags);
/* Same, naming the memory by a mapped device VA plus an offset into it. */
hlthunk_public int hlthunk_device_mapped_memory_export_dmabuf_fd(int fd,
							uint64_t addr,
							uint64_t size,
							uint64_t offset,
							uint32_t flags);

/* Exports the whole pages of device memory that hold [addr, addr + size),
 * where addr is any address inside a mapping made by
 * hlthunk_device_memory_map through this library; *offset receives the
 * place of addr in the new dma-buf.  Returns the dma-buf fd or a negative
 * errno: -EFAULT when no device-memory mapping of fd holds addr, -ERANGE
 * when the range runs past its end or wraps, -EINVAL for size 0, a NULL
 * offset or a mapping of host memory.  flags as above. */
hlthunk_public int hlthunk_device_memory_export_dmabuf_range(int fd,
							uint64_t addr,
							uint64_t size,
							uint32_t flags,
							uint64_t *offset);

/* ---- Command submission ----------------------------------------------- */

hlthunk_public int hlthunk_request_command_buffer(int fd, uint32_t cb_size,
						uint64_t *cb_handle);
hlthunk_public int hlthunk_destroy_command_buffer(int fd, uint64_t cb_handle);
hlthunk_public int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
					struct hlthunk_cs_out *out);
/* Returns 0 and the CS status in *status, or a negative errno. */
hlthunk_public int hlthunk_wait_for_cs(int fd, uint64_t seq,
				uint64_t timeout_us, uint32_t *status);

/* ---- Channels and registered memory (/dev/hl_ipc) ---------------------- */

/* A region cookie: names registered memory in any process of the node. */
typedef uint64_t hlthunk_ipc_cookie;

/* Access a region grants to copies that use it. */
#define HLTHUNK_IPC_ACCESS_READ		(1u << 0)
#define HLTHUNK_IPC_ACCESS_WRITE	(1u << 1)
/* Let processes of any user use the cookie (default: same uid only). */
#define HLTHUNK_IPC_ACCESS_ANY_USER	(1u << 2)

/* Feature bits of struct hlthunk_ipc_info (same values as the uapi's). */
#define HLTHUNK_IPC_FEAT_DMABUF		(1ull << 0)
#define HLTHUNK_IPC_FEAT_USER_MEM	(1ull << 1)
#define HLTHUNK_IPC_FEAT_ASYNC		(1ull << 2)
#define HLTHUNK_IPC_FEAT_BATCH		(1ull << 3)
#define HLTHUNK_IPC_FEAT_ANY_USER	(1ull << 4)
#define HLTHUNK_IPC_FEAT_QUERY		(1ull << 5)

struct hlthunk_ipc_info {
	uint32_t abi_version;		/* ABI version of /dev/hl_ipc */
	uint32_t lib_abi_version;	/* the ABI version this library speaks */
	uint64_t features;		/* HLTHUNK_IPC_FEAT_* */
	uint32_t max_regions;		/* regions per process */
	uint32_t max_channels;		/* channels per process */
	uint32_t max_batch;		/* copies in one batch */
	uint32_t chunk_size;		/* bytes the copy engine moves at once */
	uint64_t reserved[4];
};

struct hlthunk_ipc_copy {
	uint32_t channel_id;
	uint32_t flags;			/* must be 0 */
	hlthunk_ipc_cookie src_cookie;
	uint64_t src_offset;
	hlthunk_ipc_cookie dst_cookie;
	uint64_t dst_offset;
	uint64_t length;
};

/* What /dev/hl_ipc supports.  Opens it on first use; -EPROTO if its ABI
 * version is not the one this library speaks. */
hlthunk_public int hlthunk_ipc_query(struct hlthunk_ipc_info *info);

/* Registers a whole dma-buf exported by the device of dev_fd (any node
 * of it), or by the host when dev_fd is -1; returns its cookie and, when
 * size is not NULL, its size. */
hlthunk_public int hlthunk_ipc_register_dmabuf(int dmabuf_fd, int dev_fd,
					uint32_t access,
					hlthunk_ipc_cookie *cookie,
					uint64_t *size);
/* Registers (pins) host memory; returns its cookie. */
hlthunk_public int hlthunk_ipc_register_host(void *addr, uint64_t size,
					uint32_t access,
					hlthunk_ipc_cookie *cookie);
/* Registers device memory named by a VA of hlthunk_device_memory_map, for
 * reading and writing by processes of the same user.  The whole allocation
 * is exported and registered once (cached); the cookie returned names that
 * allocation, *offset the place of addr in it.  The cookie stays valid
 * until the memory is unmapped or freed, or the cookie is deregistered. */
hlthunk_public int hlthunk_ipc_register_device_memory(int fd, uint64_t addr,
					hlthunk_ipc_cookie *cookie,
					uint64_t *offset, uint64_t *size);
/* Registers [addr, addr + size) of mapped device memory (widened to whole
 * pages) with exactly the access asked (HLTHUNK_IPC_ACCESS_*; reading is
 * always granted).  The registration is the caller's: not cached, ended by
 * hlthunk_ipc_deregister, and until then the memory cannot be unmapped
 * (the driver refuses to unmap exported memory).  *offset receives the
 * place of addr in the registered range. */
hlthunk_public int hlthunk_ipc_register_device_range(int fd, uint64_t addr,
					uint64_t size, uint32_t access,
					hlthunk_ipc_cookie *cookie,
					uint64_t *offset);
/* Ends a registration.  A cookie of hlthunk_ipc_register_device_memory is
 * dropped from the library's cache too (the memory is registered again,
 * under a new cookie, when next used). */
hlthunk_public int hlthunk_ipc_deregister(hlthunk_ipc_cookie cookie);

/* Checks that a peer's cookie is usable here and gives it a device VA in
 * the address space of fd (the local fd of the peer's device, usually its
 * control node), so hlthunk_ipc_channel_copy can name peer memory like
 * local memory.  *size receives the region's size. */
hlthunk_public int hlthunk_ipc_import(int fd, hlthunk_ipc_cookie cookie,
				uint64_t *addr, uint64_t *size);
/* Forgets an address returned by hlthunk_ipc_import. */
hlthunk_public int hlthunk_ipc_unimport(int fd, uint64_t addr);

/* Channels join two devices, each named by an fd of one of its nodes. A
 * channel is cached per device pair: creating it again returns the same id
 * and takes a reference; destroy drops one; -ENOENT for an unknown id. */
hlthunk_public int hlthunk_ipc_channel_create(int src_fd, int dst_fd,
					uint32_t *channel_id);
hlthunk_public int hlthunk_ipc_channel_destroy(uint32_t channel_id);
/* Copies length bytes from device address src (of src_fd's device) to dst
 * (of dst_fd's device), synchronously, on the channel. */
hlthunk_public int hlthunk_ipc_channel_copy(uint32_t channel_id, int src_fd,
					int dst_fd, void *dst, void *src,
					size_t length);

/* Copies by cookie.  Synchronous. */
hlthunk_public int hlthunk_ipc_copy(const struct hlthunk_ipc_copy *copy);
/* Queues a copy; *seq receives the sequence number to wait for. */
hlthunk_public int hlthunk_ipc_copy_async(const struct hlthunk_ipc_copy *copy,
					uint64_t *seq);
/* Queues count copies at once; *seq receives the sequence number of the
 * last one.  Returns the number queued (count) or a negative errno. */
hlthunk_public int hlthunk_ipc_copy_batch(const struct hlthunk_ipc_copy *copies,
					uint32_t count, uint64_t *seq);
/* Waits until every copy up to seq on channel_id has completed. Returns 0,
 * -ETIMEDOUT, or the error of a failed copy. timeout_us 0: do not wait. */
hlthunk_public int hlthunk_ipc_wait(uint32_t channel_id, uint64_t seq,
				uint64_t timeout_us);
/* The fd of /dev/hl_ipc this process uses, for poll(); negative errno. */
hlthunk_public int hlthunk_ipc_get_fd(void);

/* ---- Address lookup, host channels, cookie queries -------------------- */

/* What hlthunk_ipc_lookup_address found at an address. */
#define HLTHUNK_IPC_MEM_DEVICE		1	/* hlthunk_device_memory_map */
#define HLTHUNK_IPC_MEM_HOST_MAPPED	2	/* hlthunk_host_memory_map */

struct hlthunk_ipc_mem_info {
	int32_t fd;		/* the compute fd the mapping was made on, if
				 * that fd is still open on the same node;
				 * else -1 */
	uint32_t kind;		/* HLTHUNK_IPC_MEM_* */
	uint64_t base;		/* device VA where the mapping starts */
	uint64_t size;		/* bytes of the mapping */
	char pci_bus_id[16];	/* the device, "dddd:bb:dd.f", NUL-terminated */
	uint64_t reserved[4];	/* 0 */
};

/* Which device of this process maps [addr, addr + size): a mapping made
 * through this library by hlthunk_device_memory_map or
 * hlthunk_host_memory_map on any device.  Returns 0 and fills *info;
 * -ENOENT when no device mapping holds addr (for example plain host
 * memory), -ERANGE when the range runs past the end of the mapping that
 * holds addr, -EEXIST when mappings of two devices hold addr (device
 * address spaces are separate; map at distinct hint addresses), -EINVAL
 * for size 0, a wrapping range or NULL info. */
hlthunk_public int hlthunk_ipc_lookup_address(uint64_t addr, uint64_t size,
					struct hlthunk_ipc_mem_info *info);

/* Flags of hlthunk_ipc_channel_create_ex: that end is host memory, and its
 * fd must be -1. */
#define HLTHUNK_IPC_CHANNEL_SRC_HOST	(1u << 0)
#define HLTHUNK_IPC_CHANNEL_DST_HOST	(1u << 1)

/* hlthunk_ipc_channel_create, where either end may be the host (system
 * memory registered with hlthunk_ipc_register_host).  Cached per pair like
 * device channels; end it with hlthunk_ipc_channel_destroy.  -EINVAL for
 * unknown flags, a host end whose fd is not -1, or NULL channel_id. */
hlthunk_public int hlthunk_ipc_channel_create_ex(int src_fd, int dst_fd,
					uint32_t flags,
					uint32_t *channel_id);

/* Where a region's memory lives (same values as the uapi's). */
#define HLTHUNK_IPC_DEV_KIND_HOST	0
#define HLTHUNK_IPC_DEV_KIND_SIM	1	/* habanalabs_sim */
#define HLTHUNK_IPC_DEV_KIND_REAL	2	/* habanalabs */

struct hlthunk_ipc_region_info {
	uint64_t size;		/* bytes */
	uint32_t access;	/* HLTHUNK_IPC_ACCESS_* it was registered with */
	uint32_t dev_kind;	/* HLTHUNK_IPC_DEV_KIND_* */
	uint32_t dev_major;	/* device node major, 0 for the host */
	uint32_t dev_index;	/* device index, 0 for the host */
	uint64_t reserved[2];	/* 0 */
};

/* Whether a cookie (of any process) is usable by this process, and what it
 * names.  0 and *info filled; -ENOENT for an unknown or revoked cookie,
 * -EACCES (or -ENOENT) for another user's region, -EINVAL for NULL. */
hlthunk_public int hlthunk_ipc_query_cookie(hlthunk_ipc_cookie cookie,
					struct hlthunk_ipc_region_info *info);

/* ---- Errors ------------------------------------------------------------ */

/* A sentence for a negative errno returned by this library, saying what it
 * means here and what to do (load the module, fix permissions, ...).  The
 * string is static. */
hlthunk_public const char *hlthunk_ipc_strerror(int err);
/* The message of the last failure in this thread, with what failed: for
 * example "opening /dev/hl_ipc: ...".  Empty if nothing failed yet. */
hlthunk_public const char *hlthunk_ipc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_H */
