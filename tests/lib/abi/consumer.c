/* SPDX-License-Identifier: MIT */
/*
 * A program written against hl-thunk's API and nothing else: it includes
 * only <hlthunk.h> (whose uapi types, struct hl_cs_chunk and
 * HL_WAIT_CS_STATUS_* among them, come with it, as with hl-thunk) and uses
 * the common calls: find and open a Gaudi2, ask what it is, allocate and
 * map device memory, map host memory, build a command buffer of LIN_DMA
 * packets, submit it and wait, check the data, and clean up.
 *
 * Built against libhlthunk's header with -Werror (implicit declarations are
 * errors) and linked against libhlthunk; run in the VM against
 * habanalabs_sim.  Without a device it exits 77 (skipped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hlthunk.h>

#define SIZE (64 * 1024)

/* Gaudi2 packets, as a runtime writes them (its own definitions). */
#define PKT_LIN_DMA 0x9u
#define PKT_CTL(op) (((op) << 24) | (1u << 29) | (1u << 31)) /* EB, MB */

static int fail(const char *what, int rc)
{
	fprintf(stderr, "consumer: %s: %d (%s)\n", what, rc, strerror(rc < 0 ? -rc : errno));
	return 1;
}

/*
 * One LIN_DMA in a CB, submitted on PDMA queue 0, waited for.  As on
 * Gaudi2 (and as hl-thunk does), the CB is host memory of the program
 * mapped into the device and named by its device address.
 */
static int dma(int fd, uint64_t dst, uint64_t src, uint32_t len)
{
	uint32_t *cb = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cb == MAP_FAILED)
		return fail("mmap of the CB", -errno);
	uint64_t cb_va = hlthunk_host_memory_map(fd, cb, 0, 4096);
	if (!cb_va)
		return fail("host_memory_map of the CB", -errno);
	cb[0] = len;
	cb[1] = PKT_CTL(PKT_LIN_DMA);
	memcpy(&cb[2], &src, sizeof(src));
	memcpy(&cb[4], &dst, sizeof(dst));

	struct hl_cs_chunk chunk;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb_va;
	chunk.queue_index = 0; /* PDMA 0, stream 0 */
	chunk.cb_size = 24;
	chunk.cs_chunk_flags = HL_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	struct hlthunk_cs_in in = {.chunks_execute = &chunk, .num_chunks_execute = 1};
	struct hlthunk_cs_out out;
	int rc = hlthunk_command_submission(fd, &in, &out);
	if (rc)
		return fail("command_submission", rc);
	if (out.status != HL_CS_STATUS_SUCCESS)
		return fail("cs status", (int)out.status);
	uint32_t status;
	rc = hlthunk_wait_for_cs(fd, out.seq, 5000000, &status);
	if (rc || status != HL_WAIT_CS_STATUS_COMPLETED)
		return fail("wait_for_cs", rc ? rc : (int)status);
	rc = hlthunk_memory_unmap(fd, cb_va);
	munmap(cb, 4096);
	return rc ? fail("memory_unmap of the CB", rc) : 0;
}

int main(void)
{
	int count = hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2);
	if (count < 0)
		return fail("get_device_count", count);
	if (count == 0) {
		printf("consumer: no Gaudi2 device, nothing to run\n");
		return 77;
	}
	int fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI2, NULL);
	if (fd < 0)
		return fail("open", fd);
	if (hlthunk_get_device_name_from_fd(fd) != HLTHUNK_DEVICE_GAUDI2)
		return fail("get_device_name_from_fd", -EINVAL);

	struct hlthunk_hw_ip_info hw;
	int rc = hlthunk_get_hw_ip_info(fd, &hw);
	if (rc)
		return fail("get_hw_ip_info", rc);
	char bus[13];
	rc = hlthunk_get_pci_bus_id_from_fd(fd, bus, sizeof(bus));
	if (rc)
		return fail("get_pci_bus_id_from_fd", rc);
	if (hlthunk_get_device_status_info(fd) != HL_DEVICE_STATUS_OPERATIONAL)
		return fail("get_device_status_info", -EIO);
	struct hlthunk_dram_usage_info before, after;
	rc = hlthunk_get_dram_usage(fd, &before);
	if (rc)
		return fail("get_dram_usage", rc);
	uint64_t orders;
	rc = hlthunk_get_dev_memalloc_page_orders(fd, &orders);
	if (rc)
		return fail("get_dev_memalloc_page_orders", rc);

	uint64_t handle = hlthunk_device_memory_alloc(fd, SIZE, 0, true, false);
	if (!handle)
		return fail("device_memory_alloc", -errno);
	uint64_t dev_va = hlthunk_device_memory_map(fd, handle, 0);
	if (!dev_va)
		return fail("device_memory_map", -errno);
	rc = hlthunk_get_dram_usage(fd, &after);
	if (rc || after.ctx_dram_mem < before.ctx_dram_mem + SIZE)
		return fail("get_dram_usage after alloc", rc);

	unsigned char *src = aligned_alloc(4096, SIZE), *dst = aligned_alloc(4096, SIZE);
	if (!src || !dst)
		return fail("aligned_alloc", -ENOMEM);
	for (int i = 0; i < SIZE; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	memset(dst, 0, SIZE);
	uint64_t src_va = hlthunk_host_memory_map(fd, src, 0, SIZE);
	uint64_t dst_va = hlthunk_host_memory_map(fd, dst, 0, SIZE);
	if (!src_va || !dst_va)
		return fail("host_memory_map", -errno);

	if (dma(fd, dev_va, src_va, SIZE) || dma(fd, dst_va, dev_va, SIZE))
		return 1;
	if (memcmp(src, dst, SIZE))
		return fail("the data did not make the round trip", -EIO);
	if (!hlthunk_is_device_idle(fd))
		return fail("is_device_idle", -EBUSY);

	if ((rc = hlthunk_memory_unmap(fd, src_va)) || (rc = hlthunk_memory_unmap(fd, dst_va)) ||
	    (rc = hlthunk_memory_unmap(fd, dev_va)) ||
	    (rc = hlthunk_device_memory_free(fd, handle)))
		return fail("unmap/free", rc);
	free(src);
	free(dst);
	rc = hlthunk_close(fd);
	if (rc)
		return fail("close", rc);
	printf("consumer: %d Gaudi2 device(s); %s: %d KiB there and back by LIN_DMA\n",
	       count, bus, SIZE / 1024);
	return 0;
}
