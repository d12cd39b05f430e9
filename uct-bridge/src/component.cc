// SPDX-License-Identifier: MIT
// The gaudi_ipc component and transport, and their registration with UCX
// when the library is loaded.
#include "component.h"

#include <cstring>

#include "entry_points.h"
#include "md.h"
#include "remote_key.h"
#include "status.h"
#include "transport_config.h"

namespace gaudi_ipc {

namespace {

ucs_status_t query_md_resources(uct_component_t *c, uct_md_resource_desc_t **resources_p,
				unsigned *num_p)
{
	// Always offered: without /dev/hl_ipc the staged path still works.
	return uct_md_query_single_md_resource(c, resources_p, num_p);
}

ucs_status_t md_open(uct_component_t *c, const char *, const uct_md_config_t *config,
		     uct_md_h *md_p)
{
	return Md::open(c, reinterpret_cast<const MdConfig *>(config), md_p);
}

ucs_status_t cm_open(uct_component_t *, uct_worker_h, const uct_cm_config_t *, uct_cm_h *)
{
	return UCS_ERR_UNSUPPORTED;
}

ucs_status_t rkey_ptr(uct_component_t *, uct_rkey_t, void *, uint64_t, void **)
{
	return UCS_ERR_UNSUPPORTED;
}

void md_vfs_init(uct_md_h) {}

ucs_status_t query_devices(uct_md_h md, uct_tl_device_resource_t **devices_p,
			   unsigned *num_p)
{
	return uct_single_device_resource(md, kDeviceName, UCT_DEVICE_TYPE_SHM,
					  UCS_SYS_DEVICE_ID_UNKNOWN, devices_p, num_p);
}

// A configuration table's entry (UCX 1.18 adds its flags).
#if HL_UCX_1_18
#define CONFIG_ENTRY(name, prefix, table, size) {name, prefix, table, size, {}, 0}
#else
#define CONFIG_ENTRY(name, prefix, table, size) {name, prefix, table, size, {}}
#endif

}  // namespace

uct_component_t component = {
	"gaudi_ipc",
	query_md_resources,
	md_open,
	cm_open,
	rkey_unpack,
	rkey_ptr,
	rkey_release,
#if HL_UCX_1_18
	// Keys are compared as handles: two unpackings of one key differ.
	uct_base_rkey_compare,
#endif
	CONFIG_ENTRY("gaudi_ipc memory domain", "GAUDI_IPC_", md_config_table, sizeof(MdConfig)),
	CONFIG_ENTRY("", "", nullptr, 0),
	{&component.tl_list, &component.tl_list},
	{},
	0,
	md_vfs_init,
};

uct_tl_t transport = {
	"gaudi_ipc",
	query_devices,
	iface_open,
	CONFIG_ENTRY("gaudi_ipc transport", "GAUDI_IPC_", iface_config_table, sizeof(IfaceConfig)),
	{},
};

namespace {

__attribute__((constructor)) void register_transport()
{
	uct_component_register(&component);
	uct_tl_register(&component, &transport);
}

__attribute__((destructor)) void unregister_transport()
{
	uct_tl_unregister(&transport);
	uct_component_unregister(&component);
}

}  // namespace

}  // namespace gaudi_ipc
