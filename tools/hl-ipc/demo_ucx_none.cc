// SPDX-License-Identifier: MIT
// UcxSide for a build without the UCT bridge: the demo says why it has no
// UCX row.
#include "demo_ucx.h"

namespace hlipc {

struct UcxSide::State {};

UcxSide::UcxSide() : s_(std::make_unique<State>()) {}
UcxSide::~UcxSide() = default;

bool UcxSide::open(bool)
{
	why_ = "this hl-ipc was built without UCX (HL_UCT_BRIDGE=OFF or HL_IPC_DEMO_UCX=OFF)";
	return false;
}

bool UcxSide::expose(uint64_t, uint64_t, std::vector<uint8_t> *) { return false; }
std::vector<uint8_t> UcxSide::address() const { return {}; }
bool UcxSide::connect(const std::vector<uint8_t> &, const std::vector<uint8_t> &)
{
	return false;
}
bool UcxSide::register_source(uint64_t, uint64_t) { return false; }
bool UcxSide::put(uint64_t, uint64_t, uint64_t) { return false; }

}  // namespace hlipc
