/* SPDX-License-Identifier: MIT */
/*
 * ABI conformance of libhlthunk with hl-thunk.
 *
 * Built as C11 with -Wall -Werror.  Every hl-thunk compatible function is
 * declared again below with hl-thunk's own prototype (a conflicting type is
 * a compile error), taken through a pointer of hl-thunk's function type
 * (an incompatible pointer is an error under -Werror), and called, so the
 * link against the shared library checks the symbols exist with their
 * versions.  The calls use fds that cannot be devices, which checks the
 * failure conventions: negative int results with errno set, 0 for handles
 * and addresses, HLTHUNK_DEVICE_INVALID for names.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "hlthunk.h"

/* hl-thunk's prototypes. */
int hlthunk_open(enum hlthunk_device_name device_name, const char *busid);
int hlthunk_open_control(int dev_id, const char *busid);
int hlthunk_close(int fd);
int hlthunk_get_device_count(enum hlthunk_device_name device_name);
int hlthunk_get_hw_ip_info(int fd, struct hlthunk_hw_ip_info *hw_ip);
enum hlthunk_device_name hlthunk_get_device_name_from_fd(int fd);
int hlthunk_get_pci_bus_id_from_fd(int fd, char *pci_bus_id, int len);
uint64_t hlthunk_device_memory_alloc(int fd, uint64_t size, uint64_t page_size,
				     bool contiguous, bool shared);
int hlthunk_device_memory_free(int fd, uint64_t handle);
uint64_t hlthunk_device_memory_map(int fd, uint64_t handle, uint64_t hint_addr);
uint64_t hlthunk_host_memory_map(int fd, void *host_virt_addr,
				 uint64_t hint_addr, uint64_t host_size);
int hlthunk_memory_unmap(int fd, uint64_t device_virt_addr);
int hlthunk_device_memory_export_dmabuf_fd(int fd, uint64_t addr,
					   uint64_t size, uint32_t flags);
int hlthunk_device_mapped_memory_export_dmabuf_fd(int fd, uint64_t addr,
						  uint64_t size,
						  uint64_t offset,
						  uint32_t flags);
int hlthunk_request_command_buffer(int fd, uint32_t cb_size,
				   uint64_t *cb_handle);
int hlthunk_destroy_command_buffer(int fd, uint64_t cb_handle);
int hlthunk_command_submission(int fd, struct hlthunk_cs_in *in,
			       struct hlthunk_cs_out *out);
int hlthunk_wait_for_cs(int fd, uint64_t seq, uint64_t timeout_us,
			uint32_t *status);

/* hl-thunk's enum values and struct layouts (x86-64). */
_Static_assert(HLTHUNK_DEVICE_GAUDI == 2, "enum");
_Static_assert(HLTHUNK_DEVICE_INVALID == 3, "enum");
_Static_assert(HLTHUNK_DEVICE_DONT_CARE == 4, "enum");
_Static_assert(HLTHUNK_DEVICE_GAUDI2 == 5, "enum");
_Static_assert(HLTHUNK_DEVICE_GAUDI3 == 7, "enum");
_Static_assert(HLTHUNK_DEVICE_GAUDI2D == 11, "enum");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, device_id) == 32, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, tpc_enabled_mask) == 56, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, cpucp_version) == 59, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, module_id) == 188, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, card_name) == 192, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, dram_page_size) == 224, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, nic_ports_external_mask) == 288, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, tpc_interrupt_id) == 304, "hw_ip");
_Static_assert(offsetof(struct hlthunk_hw_ip_info, reserved_dram_size) == 328, "hw_ip");
_Static_assert(sizeof(struct hlthunk_hw_ip_info) == 336, "hw_ip");
_Static_assert(sizeof(struct hlthunk_cs_in) == 32, "cs_in");
_Static_assert(offsetof(struct hlthunk_cs_in, flags) == 24, "cs_in");
_Static_assert(sizeof(struct hlthunk_cs_out) == 16, "cs_out");
_Static_assert(offsetof(struct hlthunk_cs_out, sob_count_before_submission) == 12,
	       "cs_out");

static int failures;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,   \
				#cond);                                      \
			failures++;                                          \
		}                                                            \
	} while (0)

/* A negative errno result that also set errno to the same value. */
#define CHECK_NEG(expr)                                                      \
	do {                                                                 \
		errno = 0;                                                   \
		int rc_ = (expr);                                            \
		CHECK(rc_ < 0);                                              \
		CHECK(errno == -rc_);                                        \
	} while (0)

int main(void)
{
	int (*p_open)(enum hlthunk_device_name, const char *) = hlthunk_open;
	int (*p_open_control)(int, const char *) = hlthunk_open_control;
	int (*p_close)(int) = hlthunk_close;
	int (*p_count)(enum hlthunk_device_name) = hlthunk_get_device_count;
	int (*p_hw_ip)(int, struct hlthunk_hw_ip_info *) = hlthunk_get_hw_ip_info;
	enum hlthunk_device_name (*p_name)(int) = hlthunk_get_device_name_from_fd;
	int (*p_bus)(int, char *, int) = hlthunk_get_pci_bus_id_from_fd;
	uint64_t (*p_alloc)(int, uint64_t, uint64_t, bool, bool) =
		hlthunk_device_memory_alloc;
	int (*p_free)(int, uint64_t) = hlthunk_device_memory_free;
	uint64_t (*p_map)(int, uint64_t, uint64_t) = hlthunk_device_memory_map;
	uint64_t (*p_host_map)(int, void *, uint64_t, uint64_t) =
		hlthunk_host_memory_map;
	int (*p_unmap)(int, uint64_t) = hlthunk_memory_unmap;
	int (*p_export)(int, uint64_t, uint64_t, uint32_t) =
		hlthunk_device_memory_export_dmabuf_fd;
	int (*p_export_mapped)(int, uint64_t, uint64_t, uint64_t, uint32_t) =
		hlthunk_device_mapped_memory_export_dmabuf_fd;
	int (*p_cb)(int, uint32_t, uint64_t *) = hlthunk_request_command_buffer;
	int (*p_cb_destroy)(int, uint64_t) = hlthunk_destroy_command_buffer;
	int (*p_cs)(int, struct hlthunk_cs_in *, struct hlthunk_cs_out *) =
		hlthunk_command_submission;
	int (*p_wait)(int, uint64_t, uint64_t, uint32_t *) = hlthunk_wait_for_cs;

	/* A closed fd and an fd that is open but no device. */
	int null_fd = open("/dev/null", O_RDWR);
	int closed_fd = dup(null_fd);
	close(closed_fd);
	int fds[] = {closed_fd, null_fd, -1};

	struct hlthunk_hw_ip_info hw;
	struct hlthunk_cs_in in = {0};
	struct hlthunk_cs_out out;
	uint64_t handle = 0;
	uint32_t status;
	char bus[16];
	char host[64];

	for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		int fd = fds[i];

		CHECK_NEG(p_hw_ip(fd, &hw));
		CHECK(p_name(fd) == HLTHUNK_DEVICE_INVALID);
		CHECK_NEG(p_bus(fd, bus, sizeof(bus)));
		errno = 0;
		CHECK(p_alloc(fd, 4096, 0, false, false) == 0);
		CHECK(errno != 0);
		CHECK_NEG(p_free(fd, 1));
		errno = 0;
		CHECK(p_map(fd, 1, 0) == 0);
		CHECK(errno != 0);
		errno = 0;
		CHECK(p_host_map(fd, host, 0, sizeof(host)) == 0);
		CHECK(errno != 0);
		CHECK_NEG(p_unmap(fd, 0x1000));
		CHECK_NEG(p_export(fd, 0x1000, 4096, O_RDWR | O_CLOEXEC));
		CHECK_NEG(p_export_mapped(fd, 0x1000, 4096, 0, O_RDWR));
		CHECK_NEG(p_cb(fd, 4096, &handle));
		CHECK_NEG(p_cb_destroy(fd, 1));
		CHECK_NEG(p_cs(fd, &in, &out));
		CHECK_NEG(p_wait(fd, 1, 0, &status));
	}
	/* NULL out-pointers are refused, not dereferenced. */
	CHECK_NEG(p_hw_ip(null_fd, NULL));
	CHECK_NEG(p_cb(null_fd, 4096, NULL));
	CHECK_NEG(p_wait(null_fd, 1, 0, NULL));

	CHECK(p_count(HLTHUNK_DEVICE_DONT_CARE) >= 0);
	CHECK(p_count(HLTHUNK_DEVICE_GAUDI2) >= 0);
	CHECK_NEG(p_count(HLTHUNK_DEVICE_INVALID));
	CHECK_NEG(p_open(HLTHUNK_DEVICE_INVALID, NULL));
	/* No device has this bus id; hl-thunk returns a negative value. */
	CHECK_NEG(p_open(HLTHUNK_DEVICE_DONT_CARE, "ffff:ff:1f.7"));
	CHECK_NEG(p_open_control(9999, NULL));
	CHECK_NEG(p_open_control(-1, NULL));
	CHECK_NEG(p_close(closed_fd));
	CHECK(p_close(null_fd) == 0);

	if (failures) {
		fprintf(stderr, "abi_conformance: %d check(s) failed\n", failures);
		return 1;
	}
	printf("abi_conformance: all hl-thunk compatible calls conform\n");
	return 0;
}
