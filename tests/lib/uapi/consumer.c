/* SPDX-License-Identifier: MIT */
/*
 * A program of hl-thunk's kind: it includes the kernel's habanalabs uapi
 * header and <hlthunk.h>, in the order UAPI_FIRST says, and uses both (the
 * queue and engine numberings of the uapi, the structs hl-thunk's calls
 * take).  uapi-headers-test.sh builds it, as C and as C++, against each
 * uapi header there is and checks which definitions it got:
 *   EXPECT_UAPI_LEGACY  Linux 6.1's misc/habanalabs.h (Debian 12)
 *   EXPECT_UAPI_ACCEL   Linux 6.2+'s drm/habanalabs_accel.h
 *   EXPECT_UAPI_OWN     libhlthunk's own (HLTHUNK_OWN_UAPI)
 * It runs without a device (it only counts them).
 */
#if defined(UAPI_HEADER) && defined(UAPI_FIRST)
#include UAPI_HEADER
#include <hlthunk.h>
#elif defined(UAPI_HEADER)
#include <hlthunk.h>
#include UAPI_HEADER
#else
#include <hlthunk.h>
#endif

#include <stdio.h>

#ifdef __cplusplus
#define CHECK(c, m) static_assert(c, m)
#else
#define CHECK(c, m) _Static_assert(c, m)
#endif

/* Names every habanalabs uapi has, the per-ASIC numberings among them. */
CHECK(GOYA_QUEUE_ID_TPC7 == 14, "goya queues");
CHECK(GAUDI_QUEUE_ID_NIC_9_3 == 112, "gaudi queues");
CHECK(GAUDI2_QUEUE_ID_PDMA_1_0 == 4, "gaudi2 queues");
CHECK(GAUDI2_QUEUE_ID_CPU_PQ == 260, "gaudi2 CPU queue");
CHECK(GAUDI_ENGINE_ID_NIC_9 == 29, "gaudi engines");
CHECK(GAUDI2_ENGINE_ID_PDMA_1 == 46, "gaudi2 engines");
CHECK(HL_CS_CHUNK_FLAGS_USER_ALLOC_CB == 1, "chunk flags");
CHECK(sizeof(struct hl_cs_chunk) == 64, "hl_cs_chunk");
CHECK(sizeof(struct hl_info_args) == 24, "hl_info_args");

#if defined(EXPECT_UAPI_LEGACY)
/* The system's definitions, not the library's: 6.1's layouts and names. */
CHECK(sizeof(struct hl_info_hw_idle) == 24, "6.1's hl_info_hw_idle");
CHECK(HL_IOCTL_INFO == _IOWR('H', 0x01, struct hl_info_args), "6.1's HL_IOCTL_INFO");
#elif defined(EXPECT_UAPI_ACCEL) || defined(EXPECT_UAPI_OWN)
CHECK(sizeof(struct hl_info_hw_idle) == 40, "hl_info_hw_idle");
CHECK(HL_IOCTL_INFO == 0, "HL_IOCTL_INFO is a DRM command index");
CHECK(GAUDI2_ENGINE_ID_KDMA == 78, "gaudi2 engines of 6.2+");
CHECK(sizeof(struct hl_info_signed) == 7944, "hl_info_signed");
#else
#error "say which uapi the build expects"
#endif
#if defined(EXPECT_UAPI_OWN) != defined(HABANALABS_ABI_H)
#error "the uapi definitions in use are not the expected ones"
#endif

int main(void)
{
	struct hl_info_cs_counters counters;
	struct hl_info_args args;
	struct hl_debug_args debug;
	int (*get_info)(int, struct hl_info_args *) = hlthunk_get_info;
	int (*get_counters)(int, struct hl_info_cs_counters *) = hlthunk_get_cs_counters_info;
	int (*set_debug)(int, struct hl_debug_args *) = hlthunk_debug;
	int n = hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI2);

	(void)counters;
	(void)args;
	(void)debug;
	(void)get_info;
	(void)get_counters;
	(void)set_debug;
	if (n < 0) {
		fprintf(stderr, "uapi consumer: hlthunk_get_device_count: %d\n", n);
		return 1;
	}
	printf("uapi consumer: %d Gaudi2 device(s)\n", n);
	return 0;
}
